package prometheus_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// plannedAs plays a plans source whose backfills replayed a month ago
// (true) or are still running (false).
type plannedAs map[string]bool

func (p plannedAs) Collect(_ context.Context, sink collectors.Sink) error {
	now := time.Now().UTC()
	for id, over := range p {
		b := model.Backfill{ID: id, Origin: model.OriginPlan, Owner: "data-eng@example.com", Status: model.StatusRunning,
			Timeline: model.Timeline{StartedAt: now.Add(-32 * 24 * time.Hour)},
			Expiry:   now.Add(120 * 24 * time.Hour), Source: model.Location{Source: "plans", Path: "plans/" + id + ".yaml"}}
		if over {
			b.Status, b.Timeline.CompletedAt = model.StatusReplayed, now.Add(-30*24*time.Hour)
		}
		sink.AddBackfill(b)
	}
	return nil
}

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
		plans plannedAs
		want  int
	}{
		{"one running", plannedAs{"BF-7001": true, "BF-7002": false}, 0},
		{"other running", plannedAs{"BF-7001": false, "BF-7002": true}, 0},
		{"both over", plannedAs{"BF-7001": true, "BF-7002": true}, 1},
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
