package bigquery

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

var _ collectors.Collector = (*Collector)(nil)

// A dataset whose tables cannot be listed is recorded at
// JoinScope(project, dataset), the unit its tables and ACL entries carry;
// the project and its other datasets stay answered.
func TestDatasetFailureStaysInTheDataset(t *testing.T) {
	for _, tt := range []struct{ name, frag string }{
		{"tables.list", "/datasets/bf_1234_scratch/tables"},
		{"datasets.get (ACL)", "/datasets/bf_1234_scratch"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := estate(t)
			f.fail[tt.frag] = 500
			srv := f.start()
			sink := collect(t, newCollector(t, srv.URL, "p-one"))
			if len(sink.Errors) == 0 {
				t.Fatal("no error recorded")
			}
			for _, e := range sink.Errors {
				if e.Scope != "p-one/bf_1234_scratch" {
					t.Errorf("error at %q; want p-one/bf_1234_scratch: %s", e.Scope, e.Error)
				}
			}
			cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
			if cov.Answered("p-one/bf_1234_scratch") || !cov.Answered("p-one") || !cov.Answered("p-one/analytics") {
				t.Errorf("answered: dataset %v, project %v, sibling %v", cov.Answered("p-one/bf_1234_scratch"), cov.Answered("p-one"), cov.Answered("p-one/analytics"))
			}
			for _, a := range sink.Artifacts {
				if a.Scope != "p-one/"+a.Attr(AttrDataset) {
					t.Errorf("%s: scope %q", a.URI, a.Scope)
				}
			}
			if tt.name == "datasets.get (ACL)" && sink.Artifact("bigquery://p-one/bf_1234_scratch/t1") == nil {
				t.Errorf("the dataset's tables should still be read when only its ACL fails: %v", uris(sink))
			}
			if sink.Artifact("bigquery://p-one/analytics/orders_tmp") == nil {
				t.Errorf("the sibling dataset was not collected: %v", uris(sink))
			}
		})
	}
}

func TestMalformedListingIsAnError(t *testing.T) {
	f := estate(t)
	f.datasets["p-one"] = append(f.datasets["p-one"], `{"kind":"bigquery#dataset","id":"p-one:"}`)
	f.tables["p-one/analytics"] = append(f.tables["p-one/analytics"], `{"kind":"bigquery#table","type":"TABLE"}`)
	srv := f.start()
	sink := collect(t, newCollector(t, srv.URL, "p-one"))
	got := map[string]bool{}
	for _, e := range sink.Errors {
		got[e.Scope] = true
	}
	if !got["p-one"] || !got["p-one/analytics"] || len(got) != 2 {
		t.Errorf("errors %+v; want one at p-one (dataset entry) and one at p-one/analytics (table entry)", sink.Errors)
	}
}

func TestClockFromTheAudit(t *testing.T) {
	f := estate(t)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	if err := c.Init(envAt(func() time.Time { return mar1.AddDate(0, 0, 1) })); err != nil {
		t.Fatal(err)
	}
	sink := collect(t, c)
	if a := sink.Artifact("bigquery://p-one/analytics/bf_1234_events_fix"); a == nil || a.State != model.StateExpired {
		t.Errorf("a table past its expiration at the audit's time: %+v", a)
	}
}

func TestBadTimeoutsRejected(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "bigquery", "projects": []any{"p"}})
}

// Every unit says what it read, machinery or not: the project its
// datasets, each dataset its tables (the production table events too)
// and ACL entries. A table whose tables.get fails was read in part, and
// so was a dataset whose ACL could not be read.
func TestReadsOfEveryUnit(t *testing.T) {
	f := estate(t)
	f.fail["/datasets/analytics/tables/orders_tmp"] = 500
	f.fail["/datasets/bf_1234_scratch"] = 500
	srv := f.start()
	sink := collect(t, newCollector(t, srv.URL, "p-one"))
	for _, c := range []struct {
		scope, what   string
		read, partial int
	}{
		{"p-one", "datasets", 3, 1},
		{"p-one/analytics", "tables", 3, 1},
		{"p-one/analytics", "ACL entries", 5, 0},
		{"p-one/bf_1234_scratch", "tables", 1, 0},
		{"p-one/bf_1234_scratch", "ACL entries", 0, 0},
		{"p-one/staging", "tables", 0, 0},
	} {
		if n, p := sink.Read(c.scope, c.what); n != c.read || p != c.partial {
			t.Errorf("%s: read %d %s (%d in part), want %d (%d in part)", c.scope, n, c.what, p, c.read, c.partial)
		}
	}
}
