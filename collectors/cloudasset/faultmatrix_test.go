package cloudasset_test

import (
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/cloudasset"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// TestFaultMatrix fails each unit the Asset API collector answers for on
// a second run and lets the harness prove nothing it reported is ticked,
// closed or resolved: the whole source (every scope refused), a project
// (its scope refused), a dataset (a table answered without its data; the
// follow-up search of a backfill dataset failing), a project's topics,
// subscriptions and account listing (an entry without its data), the
// follow-up search for subscriptions on a backfill topic (may live in any
// project: the whole source), and one account's keys (the follow-up search
// failing).
func TestFaultMatrix(t *testing.T) {
	unit := func(kind, scope string, breakIt func(*cloudasset.FaultFake)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			c, ff := cloudasset.NewFaultFixture(t)
			return c, func() { breakIt(ff) }
		}}
	}
	const bq, ps, iam = "//bigquery.googleapis.com/projects/proj/datasets/", "//pubsub.googleapis.com/projects/proj/", "//iam.googleapis.com/projects/proj/serviceAccounts/"
	faultmatrix.Run(t, "cloudasset", []faultmatrix.Unit{
		unit("source", "", func(ff *cloudasset.FaultFake) { ff.Deny("projects/proj"); ff.Deny("projects/other") }),
		unit("project", "proj", func(ff *cloudasset.FaultFake) { ff.Deny("projects/proj") }),
		unit("dataset", model.JoinScope("proj", "analytics"), func(ff *cloudasset.FaultFake) {
			ff.StripData(bq + "analytics/tables/bf_7001_tmp")
		}),
		unit("dataset follow-up", model.JoinScope("proj", "bf_7001_scratch"), func(ff *cloudasset.FaultFake) {
			ff.Fail(bq+"bf_7001_scratch", 500)
		}),
		unit("topics", model.JoinScope("proj", "topics"), func(ff *cloudasset.FaultFake) { ff.StripData(ps + "topics/bf-7001-retry") }),
		unit("subscriptions", model.JoinScope("proj", "subscriptions"), func(ff *cloudasset.FaultFake) {
			ff.StripData(ps + "subscriptions/retry-worker")
		}),
		unit("subscriptions follow-up", "", func(ff *cloudasset.FaultFake) { ff.Fail("projects/proj/topics/bf-7001-retry", 503) }),
		unit("account listing", model.JoinScope("proj", "serviceAccounts"), func(ff *cloudasset.FaultFake) { ff.StripData(iam + "1101") }),
		unit("service account's keys", model.JoinScope("proj", "serviceAccounts", cloudasset.FaultAccount), func(ff *cloudasset.FaultFake) {
			ff.Fail(`"`+cloudasset.FaultAccount+`"`, 500)
		}),
	})
}
