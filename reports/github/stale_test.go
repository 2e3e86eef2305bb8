package github

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// With no history store, a plan that cannot be read leaves only the
// scheduler's evidence to describe the backfill (its DAG as the job, no
// purpose). The issue must keep what it already says and carry the "could
// not be read" note, as it does when history puts back the last known plan,
// and not be rewritten from that evidence.
func TestUnreadPlanKeepsTheIssueWithoutHistory(t *testing.T) {
	for _, tc := range []struct {
		name string
		cov  model.Coverage
		unit string // what the note names
	}{
		{"plan file failed", model.Coverage{Source: "plans", Status: model.CoverageDegraded,
			Errors: []model.ScopeError{{Scope: "plans/bf-1234.yaml", Error: "yaml: line 3: did not find expected key"}}}, "plans / plans/bf-1234.yaml"},
		{"plan source failed", model.Coverage{Source: "plans", Status: model.CoverageFailed, Error: "open plans: permission denied"}, "plans / plans/bf-1234.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			s, _ := newTestSink(t, f)
			e := newEstate().backfill("BF-1234", "team-payments").
				finding("BF-1234", "BF005", model.StepRetired, uri(1))
			e.backfills[0].Backfill.Origin = model.OriginPlan
			e.backfills[0].Backfill.Source = model.Location{Source: "plans", Path: "plans/bf-1234.yaml"}
			e.coverage = append(e.coverage, model.Coverage{Source: "plans", System: "records", Status: model.CoverageOK})
			runSync(t, s, e)
			before := issueFor(t, f, "BF-1234")
			if before.title != "Clean up backfill BF-1234 (daily_revenue)" {
				t.Fatalf("first run filed %q", before.title)
			}

			// The plan does not read; the scheduler still sees the backfill.
			e.coverage[len(e.coverage)-1] = tc.cov
			e.backfills[0].Backfill = &model.Backfill{ID: "BF-1234", Origin: model.OriginScheduler,
				JobID: "bf_1234_refund_replay", Owner: "team-payments", Status: model.StatusRunning,
				Source: model.Location{Source: "airflow", Path: "dags/bf_1234_refund_replay/backfills/7"}}
			runSync(t, s, e)

			is := issueFor(t, f, "BF-1234")
			if is.title != before.title {
				t.Errorf("title became %q, want %q kept", is.title, before.title)
			}
			if !strings.Contains(is.body, "| Purpose | replay of BF-1234 |") || strings.Contains(is.body, "bf_1234_refund_replay") {
				t.Errorf("description rewritten from the scheduler's evidence:\n%s", is.body)
			}
			if !strings.Contains(is.body, "could not be read in the latest run (`"+tc.unit+"`)") {
				t.Errorf("no note naming the plan that could not be read:\n%s", is.body)
			}
			if rest := strings.TrimPrefix(is.body[strings.Index(is.body, staleEnd)+len(staleEnd):], "\n\n"); rest != before.body {
				t.Errorf("the rest of the issue changed:\n%s\nwas:\n%s", rest, before.body)
			}
		})
	}
}
