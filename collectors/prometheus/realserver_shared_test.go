package prometheus_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// SharedReplayLagA watches backfill_id=~"bf-7001|bf-7002" and
// SharedReplayLagB the same ids the other way round. Against the real
// Prometheus, with BF-7001 finished and BF-7002 still running, neither is
// lingering (following a BF007 there would delete alerting a running
// replay needs); once both are over each is flagged once, naming both.
func TestRealServerAlertOfTwoBackfills(t *testing.T) {
	url := realProm(t)
	shared := []string{"SharedReplayLagA", "SharedReplayLagB"}
	for _, tc := range []struct {
		name  string
		plans collectortest.PlannedAs
		want  int
	}{
		{"one running", collectortest.PlannedAs{"BF-7001": true, "BF-7002": false}, 0},
		{"other running", collectortest.PlannedAs{"BF-7001": false, "BF-7002": true}, 0},
		{"both over", collectortest.PlannedAs{"BF-7001": true, "BF-7002": true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			instances := []collectors.Instance{{Name: "plans", Type: "records", Collector: tc.plans}, apiSource(t, url, "prom")}
			rep := collectortest.Audit(t, instances, time.Now().UTC())
			got := map[string][]model.Finding{}
			for _, f := range rep.Findings {
				if f.RuleID == "BF007" {
					name := f.ArtifactURI[strings.LastIndex(f.ArtifactURI, "/")+1:]
					got[name] = append(got[name], f)
				}
			}
			for _, name := range shared {
				if len(got[name]) != tc.want {
					t.Errorf("%s: %d BF007 findings, want %d: %+v", name, len(got[name]), tc.want, got[name])
					continue
				}
				for _, f := range got[name] {
					if !strings.Contains(f.Message, "BF-7001") || !strings.Contains(f.Message, "BF-7002") {
						t.Errorf("%s: BF007 does not name both backfills: %s", name, f.Message)
					}
				}
			}
		})
	}
}
