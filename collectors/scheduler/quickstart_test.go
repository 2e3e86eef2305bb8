package scheduler

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// TestQuickstartAnswers saves the quickstart's EventBridge Scheduler
// answers (BFAUDIT_WRITE_QUICKSTART=1): BF-4400's one-off replay
// schedule, fired in October and still enabled, in both accounts,
// beside the nightly orders job it replayed; and once it is deleted.
func TestQuickstartAnswers(t *testing.T) {
	collectortest.SaveQuickstartAWS(t, quickstartSource, "scheduler")
}

func quickstartSource(t *testing.T, dir string, cleaned bool) collectors.Collector {
	f := newFakeAWS(t)
	for _, account := range collectortest.QuickstartAccounts {
		machine := "arn:aws:states:eu-west-1:" + account + ":stateMachine:orders_dedup"
		s := f.at(account, mainRegion)
		nightly := schedule("nightly_orders_dedup", "cron(30 1 * * ? *)", machine)
		s.add("default", nightly)
		if cleaned {
			continue
		}
		once := schedule("bf-4400-replay-once", "at(2026-10-12T02:00:00)", machine,
			"Target", map[string]any{"Arn": machine, "RoleArn": "arn:aws:iam::" + account + ":role/bf-4400-replay",
				"Input": `{"backfill_id": "BF-4400", "start": "2026-09-01", "end": "2026-09-30"}`},
			"ActionAfterCompletion", "NONE", "Description", "BF-4400 orders dedup replay, fires once")
		s.add("default", once)
		once["CreationDate"], once["LastModificationDate"] = time.Date(2026, 10, 11, 16, 0, 0, 0, time.UTC), time.Date(2026, 10, 11, 16, 0, 0, 0, time.UTC)
	}
	return newOn(t, f.URL, func(c *Collector) { c.SaveAnswers, c.Accounts = dir, collectortest.QuickstartAccountSettings() })
}
