package cloudasset

import (
	"context"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

func TestSample(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c := inst.Collector.(*Collector)
	if len(c.Scopes) != 1 || c.PageSize != 500 || c.NamePrefixes[0] != "bf" {
		t.Errorf("sample decoded as %+v", c)
	}
}

func TestBadTimeoutsRejected(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "cloudasset", "scopes": []any{"organizations/1"}})
}

// Config mistakes are refused at load, naming the key.
func TestConfigErrors(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	custom, err := correlate.NewSelector(nil, []string{`(?i)\b(replay-\d+)\b`})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		entry map[string]any
		sel   *correlate.Selector
		want  string
	}{
		{"nothing to read", map[string]any{}, nil, "scopes: missing"},
		{"project number-less scope", map[string]any{"scopes": []any{"projects/"}}, nil, "scopes[0]"},
		{"organization by name", map[string]any{"scopes": []any{"organizations/acme"}}, nil, "scopes[0]"},
		{"full resource name", map[string]any{"scopes": []any{"//cloudresourcemanager.googleapis.com/projects/p"}}, nil, "scopes[0]"},
		{"page too large", map[string]any{"scopes": []any{"projects/p"}, "page_size": 1000}, nil, "page_size"},
		{"negative page", map[string]any{"scopes": []any{"projects/p"}, "page_size": -1}, nil, "page_size"},
		{"prefix with a quote", map[string]any{"scopes": []any{"projects/p"}, "name_prefixes": []any{`bf"`}}, nil, "name_prefixes[0]"},
		{"custom name patterns without prefixes", map[string]any{"scopes": []any{"projects/p"}}, custom, "name_prefixes: missing"},
		{"empty file", map[string]any{"files": []any{" "}}, nil, "files[0]"},
		{"member missing", map[string]any{"scopes": []any{"projects/p"}, "principals": []any{map[string]any{"backfill_id": "BF-1"}}}, nil, "principals[0].member"},
		{"endpoint not a URL", map[string]any{"scopes": []any{"projects/p"}, "endpoint": "cloudasset"}, nil, "endpoint"},
		{"typo", map[string]any{"scopes": []any{"projects/p"}, "scope": "projects/p"}, nil, "scope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.entry["type"] = "cloudasset"
			sel := tc.sel
			if sel == nil {
				sel = correlate.MustSelector()
			}
			_, err := collectors.Decode(tc.entry, collectors.Env{Selector: sel})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v; want %q", err, tc.want)
			}
		})
	}
	// With custom patterns, prefixes make it valid; files alone need none.
	for _, entry := range []map[string]any{
		{"type": "cloudasset", "scopes": []any{"projects/p"}, "name_prefixes": []any{"replay"}},
		{"type": "cloudasset", "files": []any{"export.json"}},
	} {
		if _, err := collectors.Decode(entry, collectors.Env{Selector: custom}); err != nil {
			t.Errorf("%v: %v", entry, err)
		}
	}
}

// Declared assets and principals are searched by name, batched, so a plan
// naming a table without label or telling name is still found.
func TestDeclaredTerms(t *testing.T) {
	sel := correlate.MustSelector()
	sel.Assets["bigquery://p/ds/events_fix"] = "BF-1"
	sel.Assets["pubsub://p/topics/replay"] = "BF-1"
	sel.Assets["gcpiam://p/bindings/roles/editor/user:Alice@example.com"] = "BF-1"
	sel.Assets["rabbitmq://vhost/q"] = "BF-1"
	sel.Principals["runner@p.iam.gserviceaccount.com"] = "BF-1"
	c := &Collector{NamePrefixes: []string{"bf"}, sel: sel}
	rq, pq := c.resourceQueries(), c.policyQueries()
	if len(rq) != 2 || rq[1] != "name=//bigquery.googleapis.com/projects/p/datasets/ds/tables/events_fix OR name=//pubsub.googleapis.com/projects/p/topics/replay" {
		t.Errorf("resource queries %q", rq)
	}
	if len(pq) != 2 || pq[1] != `policy:"alice@example.com" OR policy:"runner@p.iam.gserviceaccount.com"` {
		t.Errorf("policy queries %q", pq)
	}
	for i := 0; i < 45; i++ {
		sel.Assets["bigquery://p/ds/t"+strings.Repeat("x", i)] = "BF-1"
	}
	if n := len(c.resourceQueries()); n != 1+3 {
		t.Errorf("%d queries for 46 declared tables; want the filter and 3 batches of at most %d", n, batchSize)
	}
}

// The source is one unit, the whole of it: a search that finds nothing
// answers that it read none, not "declared and not read".
func TestNothingFoundAnswers(t *testing.T) {
	f := newFakeAsset(t, &fxEstate{})
	c := newCollector(t, f.start().URL, "projects/empty")
	if units, err := c.Units(context.Background()); err != nil || len(units) != 1 || units[0] != "" {
		t.Fatalf("units %q, %v; want the whole source", units, err)
	}
	sink := collect(t, c)
	if len(sink.Errors) != 0 || len(sink.Artifacts) != 0 {
		t.Errorf("errors %+v, artifacts %v", sink.Errors, uris(sink))
	}
	if n, _ := sink.Read("", "assets"); n != 0 || len(sink.Reads) != 1 {
		t.Errorf("reads %+v; want none read, said", sink.Reads)
	}
}
