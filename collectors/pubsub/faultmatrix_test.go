package pubsub_test

import (
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/pubsub"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// TestFaultMatrix fails each unit the Pub/Sub collector answers for (the
// whole source, one project, its topics, its subscriptions, its snapshots) on a second
// run, against pstest, and lets the harness prove nothing it reported is
// ticked, closed or resolved. A failed topic listing fails the project:
// subscriptions are tied through their topics.
func TestFaultMatrix(t *testing.T) {
	unit := func(kind, scope string, breakIt func(*pubsub.FaultFake)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			c, ff := pubsub.NewFaultFixture(t)
			return c, func() { breakIt(ff) }
		}}
	}
	faultmatrix.Run(t, "pubsub", []faultmatrix.Unit{
		unit("source", "", func(ff *pubsub.FaultFake) { ff.FailTopics("") }),
		unit("project", "proj", func(ff *pubsub.FaultFake) { ff.FailTopics("proj") }),
		unit("topics", model.JoinScope("proj", "topics"), func(ff *pubsub.FaultFake) { ff.FailTopics("proj") }),
		unit("subscriptions", model.JoinScope("proj", "subscriptions"), func(ff *pubsub.FaultFake) { ff.FailSubscriptions("proj") }),
		unit("snapshots", model.JoinScope("proj", "snapshots"), func(ff *pubsub.FaultFake) { ff.FailSnapshots("proj") }),
	})
}
