package iamcond

import (
	"strings"
	"testing"
	"time"
)

func TestExpiry(t *testing.T) {
	mar1 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	feb1 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		expr string
		want time.Time
		ok   bool
	}{
		{"less than", `request.time < timestamp("2026-03-01T00:00:00Z")`, mar1, true},
		{"less or equal", `request.time <= timestamp("2026-03-01T00:00:00Z")`, mar1, true},
		{"reversed greater", `timestamp("2026-03-01T00:00:00Z") > request.time`, mar1, true},
		{"reversed greater or equal", `timestamp("2026-03-01T00:00:00Z") >= request.time`, mar1, true},
		{"single quotes and fractional seconds", `request.time < timestamp('2026-03-01T00:00:00.000Z')`, mar1, true},
		{"offset normalised to UTC", `request.time < timestamp("2026-03-01T01:00:00+01:00")`, mar1, true},
		{"and with a resource check", `resource.name.startsWith("projects/_/buckets/bf") && request.time < timestamp("2026-03-01T00:00:00Z")`, mar1, true},
		{"and takes the earliest bound", `request.time < timestamp("2026-03-01T00:00:00Z") && request.time < timestamp("2026-02-01T00:00:00Z")`, feb1, true},
		{"window: lower and upper bound", `request.time > timestamp("2026-01-01T00:00:00Z") && request.time < timestamp("2026-03-01T00:00:00Z")`, mar1, true},
		{"long and chain", `a == 1 && b == 2 && request.time < timestamp("2026-03-01T00:00:00Z") && c == 3`, mar1, true},
		{"parenthesised", `(request.time < timestamp("2026-03-01T00:00:00Z"))`, mar1, true},
		{"or with both branches bounded takes the latest", `request.time < timestamp("2026-02-01T00:00:00Z") || request.time < timestamp("2026-03-01T00:00:00Z")`, mar1, true},
		{"or with an unbounded branch", `request.time < timestamp("2026-03-01T00:00:00Z") || resource.type == "x"`, time.Time{}, false},
		{"lower bound only", `request.time > timestamp("2026-03-01T00:00:00Z")`, time.Time{}, false},
		{"reversed lower bound", `timestamp("2026-03-01T00:00:00Z") < request.time`, time.Time{}, false},
		{"no time clause", `resource.name.startsWith("projects/p/datasets/bf_1234")`, time.Time{}, false},
		{"negation is not read", `!(request.time >= timestamp("2026-03-01T00:00:00Z"))`, time.Time{}, false},
		{"computed bound is not read", `request.time < timestamp("2026-03-01T00:00:00Z") + duration("24h")`, time.Time{}, false},
		{"other field of request", `request.host < timestamp("2026-03-01T00:00:00Z")`, time.Time{}, false},
		{"empty", ``, time.Time{}, false},
		{"blank", "  \n", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := Expiry(tt.expr)
			if err != nil {
				t.Fatalf("Expiry(%q): %v", tt.expr, err)
			}
			if ok != tt.ok || !got.Equal(tt.want) {
				t.Fatalf("Expiry(%q) = %v, %v; want %v, %v", tt.expr, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestExpiryMalformed(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want []string // fragments of the error
	}{
		{"unbalanced parenthesis", `(request.time < timestamp("2026-03-01T00:00:00Z")`, []string{"does not parse", "line 1, column 50"}},
		{"dangling operator", `request.time < `, []string{"does not parse", "column 16"}},
		{"second line", "a == 1 &&\n  request.time <", []string{"line 2"}},
		{"timestamp not RFC 3339", `request.time < timestamp("2026-03-01")`, []string{`"2026-03-01"`, "line 1, column 26", "RFC 3339"}},
		{"bad timestamp inside and", `a == 1 && timestamp("soon") > request.time`, []string{`"soon"`, "column 21"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, err := Expiry(tt.expr)
			if err == nil {
				t.Fatalf("Expiry(%q): no error, ok=%v", tt.expr, ok)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Expiry(%q) error %q lacks %q", tt.expr, err, w)
				}
			}
		})
	}
}
