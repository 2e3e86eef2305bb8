package sqs

import (
	"net/http"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// matrixEstate is BF-7001's machinery in two accounts: a retry queue
// holding messages and the replay's topic in the base account, a
// dead-letter queue in the other, reached through its role.
func matrixEstate(t *testing.T) (*estate, *Collector) {
	e := newEstate(t)
	e.addQueue(fakeQueue{name: "bf-7001-retries", visible: 3})
	e.addQueue(fakeQueue{name: "orders", visible: 40})
	e.addQueue(fakeQueue{account: otherAccount, name: "bf_7001_dlq", visible: 2})
	e.topicTags["arn:aws:sns:eu-west-1:111111111111:replay"] = map[string]string{"backfill_id": "bf-7001"}
	createTopic(t, e, "replay")
	c := newOn(t, e.URL, func(c *Collector) {
		c.Accounts = []accountSetting{{ID: baseAccount}, {ID: otherAccount, Role: "bfaudit-read"}}
		c.Timeout = 2 * time.Second
	})
	return e, c
}

// Each unit that can fail on its own: the whole source (down, failing,
// stalled, answering what AWS does not), one account whose role is
// refused, one queue whose attributes fail, one region's SNS.
func TestFaultMatrix(t *testing.T) {
	unit := func(kind, scope string, breakIt func(e *estate)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			e, c := matrixEstate(t)
			return c, func() { breakIt(e) }
		}}
	}
	all := func(h http.Handler) func(e *estate) { return func(e *estate) { e.breakUnit("*", h) } }
	faultmatrix.Run(t, "sqs", []faultmatrix.Unit{
		unit("source", "", func(e *estate) { e.stop() }),
		unit("source", "", all(httpStatus(http.StatusInternalServerError))),
		unit("source", "", all(hostile.Stall())),
		unit("source", "", all(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body>Welcome to nginx</body></html>"))
		}))),
		unit("account", model.JoinScope(otherAccount, mainRegion), func(e *estate) { e.refuse(otherAccount) }),
		unit("queue", model.JoinScope(baseAccount, mainRegion, "sqs", "bf-7001-retries"), func(e *estate) { e.failQueueAttributes("bf-7001-retries") }),
		unit("sns", model.JoinScope(baseAccount, mainRegion, "sns"), func(e *estate) {
			e.breakUnit(baseAccount+"/"+mainRegion+"/sns", httpStatus(http.StatusInternalServerError))
		}),
	})
}
