package alertmanager_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

func anyOf(name string, values ...string) map[string]any {
	return map[string]any{"name": name, "value": strings.Join(values, "|"), "isRegex": true, "isEqual": true}
}

// A silence muting two backfills (backfill_id=~"a|b") is needed until
// both are over: against the real Alertmanager, one naming a finished and
// a running backfill is not lingering whichever is written first, and one
// naming two finished ones is, once, naming both.
func TestRealServerSilenceOfTwoBackfills(t *testing.T) {
	am := realAM(t)
	done, running, done2 := uniqueID(t), uniqueID(t), uniqueID(t)
	low := strings.ToLower
	ends := time.Now().Add(60 * 24 * time.Hour).Truncate(time.Second)
	doneFirst := createSilence(t, am, []map[string]any{anyOf("backfill_id", low(done), low(running))}, ends, "alice@example.com", "replays")
	runningFirst := createSilence(t, am, []map[string]any{anyOf("backfill_id", low(running), low(done))}, ends, "alice@example.com", "replays")
	bothOver := createSilence(t, am, []map[string]any{anyOf("backfill_id", low(done2), low(done))}, ends, "bob@example.com", "replays")
	instances := []collectors.Instance{
		{Name: "plans", Type: "records", Collector: collectortest.PlannedAs{done: true, running: false, done2: true}},
		collector(t, am, "am"),
	}
	rep := collectortest.Audit(t, instances, time.Now().UTC())
	bySilence := map[string][]model.Finding{}
	for _, f := range rep.Findings {
		if f.RuleID == "BF016" || f.RuleID == "BF112" {
			sid := f.ArtifactURI[strings.LastIndex(f.ArtifactURI, "/")+1:]
			bySilence[sid] = append(bySilence[sid], f)
		}
	}
	for _, sid := range []string{doneFirst, runningFirst} {
		if fs := bySilence[sid]; len(fs) != 0 {
			t.Errorf("silence %s of a finished and a running backfill: %+v, want no finding", sid, fs)
		}
	}
	fs := bySilence[bothOver]
	if len(fs) != 1 || fs[0].RuleID != "BF016" {
		t.Fatalf("silence of two finished backfills: %+v, want one BF016", fs)
	}
	for _, id := range []string{done, done2} {
		if !strings.Contains(fs[0].Message, id) {
			t.Errorf("BF016 does not name %s: %s", id, fs[0].Message)
		}
	}
	if !slices.Contains([]string{done, done2}, fs[0].BackfillID) {
		t.Errorf("BF016 filed under %s", fs[0].BackfillID)
	}
}
