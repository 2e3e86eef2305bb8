package gcpiam_test

import (
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/gcpiam"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// TestFaultMatrix fails each unit the IAM collector answers for (the whole
// source, one project's policy, its account listing, one account's keys)
// on a second run and lets the harness prove nothing it reported is
// ticked, closed or resolved.
func TestFaultMatrix(t *testing.T) {
	unit := func(kind, scope string, breakIt func(*gcpiam.FaultFake)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			c, ff := gcpiam.NewFaultFixture(t)
			return c, func() { breakIt(ff) }
		}}
	}
	keys := "/serviceAccounts/" + gcpiam.FaultAccount + "/keys"
	faultmatrix.Run(t, "gcpiam", []faultmatrix.Unit{
		unit("source", "", func(ff *gcpiam.FaultFake) {
			ff.Deny("proj")
			ff.Deny("other")
			ff.Fail(keys, 403)
		}),
		unit("project", "proj", func(ff *gcpiam.FaultFake) { ff.Deny("proj") }),
		unit("service-account listing", model.JoinScope("proj", "serviceAccounts"), func(ff *gcpiam.FaultFake) {
			ff.Fail("/v1/projects/proj/serviceAccounts", 500)
		}),
		unit("service account's keys", model.JoinScope("proj", "serviceAccounts", gcpiam.FaultAccount), func(ff *gcpiam.FaultFake) {
			ff.Fail(keys, 500)
		}),
	})
}
