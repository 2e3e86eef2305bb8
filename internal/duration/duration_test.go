package duration

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string // substring of the error; "" for none
	}{
		{"30d", 30 * 24 * time.Hour, ""},
		{" 14d ", 14 * 24 * time.Hour, ""},
		{"72h", 72 * time.Hour, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"-2d", -48 * time.Hour, ""},
		{"100000d", MaxDuration, ""},
		// 213504d used to overflow to about 25 minutes, 106752d to a
		// negative duration: both are errors now.
		{"213504d", 0, "must be at most 100000d"},
		{"106752d", 0, "must be at most 100000d"},
		{"100001d", 0, "must be at most 100000d"},
		{"-100001d", 0, "must be at most 100000d"},
		{"99999999999999999999d", 0, "must be at most 100000d"},
		{"2400001h", 0, "must be at most 100000d"},
		{"9999999999h", 0, "invalid duration"},
		{"d", 0, "invalid duration"},
		{"5dd", 0, "invalid duration"},
		{"1.5d", 0, "invalid duration"},
		{"", 0, "invalid duration"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Parse(%q) = %v, %v; want error with %q", tt.in, got, err, tt.err)
		}
	}
}
