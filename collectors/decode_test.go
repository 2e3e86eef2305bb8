package collectors

import (
	"strings"
	"testing"
	"time"
)

func TestDecodeDurationNamesKey(t *testing.T) {
	var out struct {
		Grace   time.Duration `mapstructure:"grace"`
		Timeout time.Duration `mapstructure:"timeout"`
	}
	for _, in := range []map[string]any{
		{"grace": "213504d"},
		{"grace": 99999999999},
		{"grace": 1e300},
	} {
		err := DecodeInto(in, &out)
		if err == nil || !strings.Contains(err.Error(), "grace") || !strings.Contains(err.Error(), "100000d") {
			t.Errorf("DecodeInto(%v) = %v, want an error naming grace and the limit", in, err)
		}
	}
	if err := DecodeInto(map[string]any{"timeout": 30, "grace": 1.5}, &out); err != nil || out.Timeout != 30*time.Second || out.Grace != 1500*time.Millisecond {
		t.Errorf("numbers are seconds: %v %+v", err, out)
	}
}
