package remedytest

import (
	"crypto/rand"
	"encoding/hex"
	"testing"
)

// RandomTag is a name no earlier run left behind, for objects a test
// makes on a real server.
func RandomTag(t *testing.T) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "bfq" + hex.EncodeToString(b)
}
