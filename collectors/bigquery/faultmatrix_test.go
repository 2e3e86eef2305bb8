package bigquery_test

import (
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/bigquery"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// TestFaultMatrix fails each unit the BigQuery collector answers for
// (the whole source, one project, one dataset) on a second run and lets
// the harness prove nothing it reported is ticked, closed or resolved.
// The job history unit (<project>/jobs@region-<x>, lineage.jobs) gives a
// table derived from the one the matrix's plan rewrote, last built before
// the rewrite: BF024 rests on it.
func TestFaultMatrix(t *testing.T) {
	unit := func(kind, scope string, breakIt func(*bigquery.FaultFake)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			c, ff := bigquery.NewFaultFixture(t)
			return c, func() { breakIt(ff) }
		}}
	}
	faultmatrix.Run(t, "bigquery", []faultmatrix.Unit{
		unit("source", "", func(ff *bigquery.FaultFake) { ff.Deny("proj"); ff.Deny("other") }),
		unit("project", "proj", func(ff *bigquery.FaultFake) { ff.Deny("proj") }),
		unit("dataset", model.JoinScope("proj", "analytics"), func(ff *bigquery.FaultFake) {
			ff.Fail("/projects/proj/datasets/analytics/tables", 500)
		}),
		unit("dataset ACL", model.JoinScope("proj", "analytics"), func(ff *bigquery.FaultFake) {
			ff.Fail("/projects/proj/datasets/analytics", 503)
		}),
		unit("job history", "proj/jobs@region-us", func(ff *bigquery.FaultFake) { ff.FailHistory("proj") }),
		unit("table metadata", model.JoinScope("proj", "analytics"), func(ff *bigquery.FaultFake) {
			ff.Fail("/projects/proj/datasets/analytics/tables/bf_7001_tmp", 500)
		}),
	})
}
