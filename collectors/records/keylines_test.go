package records

import "testing"

func TestParseKeyLines(t *testing.T) {
	data := []byte(`id: BF-1
concurrency: 4
elevated_access:
  - principal: a
    role: r
  - principal: b
    expiry: 2026-01-01
---
# second plan
id: BF-2
range: {start: 2026-01-01, end: 2026-02-01}
`)
	kl, err := ParseKeyLines(data)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		doc  int
		key  string
		want int
	}{
		{1, "concurrency", 2},
		{1, "elevated_access", 3},
		{1, "elevated_access[1]", 6},
		{1, "elevated_access[1].expiry", 7},
		{10, "range.end", 11},
		{10, "missing", 0},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := kl.Line(tt.doc, tt.key); got != tt.want {
				t.Errorf("Line(%d, %q) = %d, want %d", tt.doc, tt.key, got, tt.want)
			}
		})
	}
}
