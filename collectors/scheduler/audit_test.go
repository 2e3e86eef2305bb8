package scheduler

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	_ "github.com/bfaudit/bfaudit/rules/builtin" // the whole catalogue
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// planned plays the plans source (BF-1234 as given) and, beside it, what
// an Airflow source reports of the same backfill's replay DAGs: one
// enabled, one paused.
type planned struct {
	collectors.Whole
	b model.Backfill
}

func (p planned) CollectUnit(_ context.Context, _ string, sink collectors.Sink) error {
	sink.AddBackfill(p.b)
	sink.AddRead("", "plans", 1, 0)
	return nil
}

type airflowDAGs struct{ collectors.Whole }

func (airflowDAGs) CollectUnit(_ context.Context, _ string, sink collectors.Sink) error {
	for _, d := range []struct {
		name  string
		state model.State
	}{{"bf_1234_replay", model.StateEnabled}, {"bf_1234_replay_paused", model.StatePaused}} {
		sink.AddArtifact(model.Artifact{Kind: model.KindSchedulerJob, System: "airflow", URI: "airflow://af/dags/" + d.name, Name: d.name,
			Scope: d.name, BackfillID: "BF-1234", Correlation: "name", State: d.state, Attributes: model.Attrs(model.AttrSchedule, "@daily")})
	}
	sink.AddRead("", "dags", 2, 0)
	return nil
}

// rulesOn lists the rules that fired on each artifact.
func rulesOn(r *model.Report) map[string][]string {
	out := map[string][]string{}
	for _, f := range r.Findings {
		out[f.ArtifactURI] = append(out[f.ArtifactURI], f.RuleID)
		slices.Sort(out[f.ArtifactURI])
	}
	return out
}

// A schedule tied to a backfill past its plan's expiry draws what an
// Airflow replay DAG draws: BF001 while it is enabled, BF002 once it is
// disabled. An enabled one-off whose time has passed draws BF001 before
// the plan expires: it will not fire again, and it is still there.
func TestJudgedAsAReplayDAG(t *testing.T) {
	f := newFakeAWS(t)
	s := f.at(baseAccount, mainRegion)
	s.add("default", schedule("bf_1234_replay", "rate(1 day)", replayMachine))
	s.add("default", schedule("bf_1234_replay_paused", "rate(1 day)", replayMachine, "State", "DISABLED"))
	s.add("default", schedule("bf_1234_once", "at(2026-05-20T02:00:00)", replayMachine))
	audit := func(b model.Backfill) map[string][]string {
		b.ID, b.Origin, b.Owner, b.Source = "BF-1234", model.OriginPlan, "data-eng@example.com", model.Location{Source: "plans", Path: "plans/bf-1234.yaml"}
		r := collectortest.Audit(t, []collectors.Instance{
			{Name: "plans", Type: "records", Collector: planned{b: b}},
			{Name: "af", Type: "airflow", Collector: airflowDAGs{}},
			{Name: "aws-schedules", Type: "scheduler", Collector: newOn(t, f.URL)},
		}, auditTime)
		return rulesOn(r)
	}
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	uri := func(name string) string { return "scheduler://aws-schedules/111111111111/eu-west-1/default/" + name }

	expired := audit(model.Backfill{Status: model.StatusReplayed, Expiry: day("2026-03-01"),
		Timeline: model.Timeline{StartedAt: day("2026-01-05"), CompletedAt: day("2026-02-01")}})
	for dag, sched := range map[string]string{"airflow://af/dags/bf_1234_replay": uri("bf_1234_replay"),
		"airflow://af/dags/bf_1234_replay_paused": uri("bf_1234_replay_paused")} {
		if !slices.Equal(expired[dag], expired[sched]) || len(expired[sched]) == 0 {
			t.Errorf("past the plan's expiry: %s drew %v, the Airflow DAG %s drew %v", sched, expired[sched], dag, expired[dag])
		}
	}
	if !slices.Contains(expired[uri("bf_1234_replay")], "BF001") || !slices.Contains(expired[uri("bf_1234_replay_paused")], "BF002") {
		t.Errorf("past the plan's expiry: %v", expired)
	}

	running := audit(model.Backfill{Status: model.StatusRunning, Expiry: day("2026-12-01"), Timeline: model.Timeline{StartedAt: day("2026-05-20")}})
	if got := running[uri("bf_1234_once")]; !slices.Contains(got, "BF001") {
		t.Errorf("an enabled one-off past its time drew %v, want BF001", got)
	}
	for _, quiet := range []string{uri("bf_1234_replay"), uri("bf_1234_replay_paused"), "airflow://af/dags/bf_1234_replay"} {
		if got := running[quiet]; slices.Contains(got, "BF001") || slices.Contains(got, "BF002") {
			t.Errorf("%s drew %v while its backfill runs", quiet, got)
		}
	}
}
