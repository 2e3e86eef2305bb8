package airflow

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// checkSchedulerViews: each Airflow 3 backfill object carries Airflow's own
// account of it, and the object with no backfill id anywhere is reported
// as an unplanned backfill under an id of its own.
func checkSchedulerViews(t *testing.T, got map[string]model.Backfill) {
	t.Helper()
	b := got["BF-3100"]
	if len(b.Scheduled) != 1 {
		t.Fatalf("BF-3100: %d scheduler views, want 1", len(b.Scheduled))
	}
	v := b.Scheduled[0]
	if v.Object != "airflow backfill 9 of DAG bf_3100_ledger_replay" || v.MaxActiveRuns != 16 ||
		v.Pool != "default_pool" || v.DependsOnPast == nil || !*v.DependsOnPast ||
		v.ReprocessBehavior != "failed" || v.Running || !v.Paused ||
		v.Source.Path != "dags/bf_3100_ledger_replay/backfills/9" || v.Source.Source != "airflow-test" {
		t.Errorf("BF-3100 view (paused, unfinished): %+v", v)
	}
	if v := got["BF-1234"].Scheduled[0]; v.Running || v.Paused || v.DependsOnPast == nil || *v.DependsOnPast {
		t.Errorf("BF-1234 view (completed): %+v", v)
	}

	const id = "airflow:airflow-test:daily_revenue:12"
	u, ok := got[id]
	if !ok {
		t.Fatalf("no unplanned backfill %s among %v", id, keys(got))
	}
	if u.Origin != model.OriginScheduler || u.JobID != "daily_revenue" || u.Source.Path != "dags/daily_revenue/backfills/12" ||
		!strings.Contains(strings.Join(u.Notes, "\n"), "no plan id was found") || len(u.Scheduled) != 1 ||
		u.Scheduled[0].MaxActiveRuns != 10 || u.ReprocessBehavior != "none" {
		t.Errorf("unplanned backfill: %+v", u)
	}
}

func keys(m map[string]model.Backfill) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestSchedulerViewRunningAndUnknownTasks(t *testing.T) {
	c := New()
	c.env = env("prod")
	info := &dagInfo{dag: dagJSON{DagID: "orders_daily"}}
	b := backfillJSON{ID: 3, DagID: "orders_daily", MaxActiveRuns: 50, ReprocessBehavior: "completed",
		FromDate: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ToDate: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	bf, ok := c.backfill(b, info)
	if !ok {
		t.Fatal("an unplanned backfill object is skipped")
	}
	v := bf.Scheduled[0]
	if !v.Running || v.Paused || v.DependsOnPast != nil || v.Pool != "" || v.MaxActiveRuns != 50 {
		t.Errorf("running backfill, tasks unread: %+v", v)
	}
	if bf.ID != "airflow:prod:orders_daily:3" || bf.Status != model.StatusRunning {
		t.Errorf("id %q status %s", bf.ID, bf.Status)
	}
}

// The unplanned id stays a backfill of its own once correlated: it does
// not fold into a real id, and two objects of one deployment never share
// one.
func TestUnplannedIDsStayApart(t *testing.T) {
	c := New()
	c.env = env("prod")
	est := &model.Estate{Backfills: []model.Backfill{
		{ID: "BF-3", Origin: model.OriginPlan},
		{ID: c.unplannedID(backfillJSON{ID: 3, DagID: "bf_3"}), Origin: model.OriginScheduler},
		{ID: c.unplannedID(backfillJSON{ID: 4, DagID: "bf_3"}), Origin: model.OriginScheduler},
	}}
	ix := correlate.Correlate(est, correlate.MustSelector())
	if len(ix.Backfills) != 3 {
		t.Errorf("correlated into %d backfills, want 3: %v", len(ix.Backfills), ix.IDs)
	}
}
