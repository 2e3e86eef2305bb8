package remote

import (
	"strings"
	"testing"
)

// A bound left at 0 takes its default; a negative one is refused, naming
// the key and the default.
func TestCheckCount(t *testing.T) {
	n := 0
	if err := CheckCount("max_pages", &n, 50); err != nil || n != 50 {
		t.Errorf("0: %d %v, want the default 50", n, err)
	}
	n = 7
	if err := CheckCount("max_pages", &n, 50); err != nil || n != 7 {
		t.Errorf("7: %d %v, want 7 kept", n, err)
	}
	n = -1
	if err := CheckCount("max_pages", &n, 50); err == nil || !strings.Contains(err.Error(), "max_pages: -1") || !strings.Contains(err.Error(), "default 50") {
		t.Errorf("-1: %v, want refused naming the key and the default", err)
	}
}
