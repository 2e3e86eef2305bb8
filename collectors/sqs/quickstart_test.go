package sqs

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// TestQuickstartAnswers saves the quickstart's SQS and SNS answers
// (BFAUDIT_WRITE_QUICKSTART=1): BF-4400's retry queue, drained, and its
// dead-letter queue, still holding the orders the replay could not
// write, in both accounts, beside the orders queue of every day; and once both are deleted.
func TestQuickstartAnswers(t *testing.T) {
	collectortest.SaveQuickstartAWS(t, quickstartSource, "sqs", "sns")
}

func quickstartSource(t *testing.T, dir string, cleaned bool) collectors.Collector {
	e := newEstate(t)
	e.queueHost = "https://sqs." + mainRegion + ".amazonaws.com"
	made := time.Date(2026, 10, 11, 15, 30, 0, 0, time.UTC)
	for i, account := range collectortest.QuickstartAccounts {
		e.addQueue(fakeQueue{account: account, name: "orders-events", visible: 18, redriveTo: "orders-events-dlq"})
		e.addQueue(fakeQueue{account: account, name: "orders-events-dlq"})
		if cleaned {
			continue
		}
		e.addQueue(fakeQueue{account: account, name: "bf-4400-retries", redriveTo: "bf-4400-retries-dlq", created: made, modified: made})
		e.addQueue(fakeQueue{account: account, name: "bf-4400-retries-dlq", visible: []int{57, 12}[i], created: made, modified: made})
	}
	return newOn(t, e.URL, func(c *Collector) { c.SaveAnswers, c.Accounts = dir, collectortest.QuickstartAccountSettings() })
}
