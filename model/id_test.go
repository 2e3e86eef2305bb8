package model

import (
	"strings"
	"testing"
)

// An object names a backfill once however it is spelled: bf_1234 after
// BF-1234 is the same one, an empty id is none.
func TestAddIDKeepsEachBackfillOnce(t *testing.T) {
	var ids []string
	for _, id := range []string{"BF-1234", "", "bf_1234", "BF-7", "bf-7"} {
		ids = AddID(ids, id)
	}
	if strings.Join(ids, ",") != "BF-1234,BF-7" || !HasID(ids, "bf-1234") || HasID(ids, "BF-8") {
		t.Errorf("ids = %q", ids)
	}
}
