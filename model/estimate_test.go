package model

import "testing"

func TestParseCostEstimate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want CostClaim
		ok   bool
	}{
		{"$40 on-demand", CostClaim{Dollars: 40}, true},
		{"about 1,200 USD", CostClaim{Dollars: 1200}, true},
		{"USD 3.5k", CostClaim{Dollars: 3500}, true},
		{"2 TB scanned", CostClaim{Bytes: 2e12}, true},
		{"1.5 TiB", CostClaim{Bytes: 3 << 39}, true},
		{"800GB", CostClaim{Bytes: 800e9}, true},
		{"cheap", CostClaim{}, false},
		{"", CostClaim{}, false},
		{"BF16 replay", CostClaim{}, false},
	} {
		got, ok := ParseCostEstimate(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseCostEstimate(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestReplayBytesPrefersTheReplayQuery(t *testing.T) {
	e := &Estimate{Rewrites: []TableSpan{{Table: "a", Bytes: 10}, {Table: "b", Error: "denied"}}}
	if b, ok := e.ReplayBytes(); !ok || b != 10 {
		t.Errorf("from partitions: %d, %v", b, ok)
	}
	e.Queries = []QueryCost{{Query: "validation_query", Bytes: 5}, {Query: "replay_query", Bytes: 700}}
	if b, ok := e.ReplayBytes(); !ok || b != 700 {
		t.Errorf("from the replay query: %d, %v", b, ok)
	}
	if _, ok := (*Estimate)(nil).ReplayBytes(); ok {
		t.Error("nil estimate known")
	}
	if got := FormatBytes(3 << 40); got != "3.0 TiB" {
		t.Errorf("FormatBytes = %q", got)
	}
}
