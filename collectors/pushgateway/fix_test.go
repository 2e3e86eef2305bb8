package pushgateway

import (
	"context"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// `fix --apply` with delete_metric_group allowed deletes the lingering
// group from the real Pushgateway and records it; a group pushed again
// since the audit (a replay still running, or running again) is left
// alone.
func TestApplyDeletesTheGroup(t *testing.T) {
	base := realURL(t)
	for _, c := range []struct {
		name, want string
		pushAgain  bool
	}{{"unchanged", fix.StatusApplied, false}, {"pushed since the audit", fix.StatusSkipped, true}} {
		t.Run(c.name, func(t *testing.T) {
			id, n := newID()
			labels := map[string]string{"job": "bf_" + n + "_replay", "instance": "replayer-1"}
			push(t, base, labels)
			p := collectorOn(t, base, "pg")
			in := fixtest.Audit(t, correlate.MustSelector(), fixtest.PlanSource(t, id, true),
				collectors.Instance{Name: "pg", Type: "pushgateway", Collector: p})
			if c.pushAgain {
				push(t, base, labels)
			}
			actor, err := newActor(p)
			if err != nil {
				t.Fatal(err)
			}
			store := fixtest.OpenStore(t)
			res := fixtest.Apply(t, in, id, map[string]remedy.Actor{"pg": actor}, store, DeleteMetricGroup)
			if got := fixtest.StatusOf(res, DeleteMetricGroup); got != c.want {
				t.Errorf("delete_metric_group: %s, want %s (%+v)", got, c.want, res)
			}
			got, err := actor.Read(context.Background(), &model.Artifact{URI: "pushgateway://pg" + keyPath(labels)}, remedy.Action{})
			if err != nil || got.Found != c.pushAgain {
				t.Errorf("the group after: %+v, %v", got, err)
			}
			acts, err := store.FixActions(context.Background(), id)
			if err != nil || len(acts) != 1 || acts[0].Result != c.want || acts[0].Action != DeleteMetricGroup ||
				c.pushAgain != strings.Contains(acts[0].Error, "pushed was") {
				t.Errorf("history: %+v, %v", acts, err)
			}
		})
	}
}
