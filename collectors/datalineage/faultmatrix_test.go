package datalineage

import (
	"testing"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"google.golang.org/grpc/codes"
)

// TestFaultMatrix lists the units the collector answers for: the whole
// source and one project and location (its links). The matrix's plan
// rewrote proj.analytics.bf_7001_revenue_fix; the tables derived from it
// were not rebuilt since, so BF024 rests on the location whose links lead
// to them. A location's runs are no unit of the matrix: losing them only
// hides builds, so tables look staler, never fresher, and nothing can
// resolve falsely (TestFailingRunsStayInTheRunsUnit checks they are
// recorded at their unit only).
func TestFaultMatrix(t *testing.T) {
	const parent = "projects/proj/locations/us"
	unit := func(kind, scope string, breakIt func(f *fakeLineage)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := newFake()
			// The fixture: BF-7001's corrected table feeds a report; the
			// process writing the report last ran before the backfill.
			f.link(parent, "daily_revenue", "bigquery:proj.analytics.bf_7001_revenue_fix", "bigquery:proj.analytics.daily_revenue")
			f.link(parent, "revenue_report", "bigquery:proj.analytics.daily_revenue", "bigquery:proj.reports.revenue")
			f.run(parent, "revenue_report", lineagepb.Run_COMPLETED, faultmatrixDay)
			f.link("projects/other/locations/us", "misc", "bigquery:other.misc.a", "bigquery:other.misc.b")
			c := newCollector(t, f.serve(t), []string{"proj", "other"}, []string{"us"}, "bigquery:proj.analytics.bf_7001_revenue_fix")
			return c, func() { breakIt(f) }
		}}
	}
	faultmatrix.Run(t, "datalineage", []faultmatrix.Unit{
		unit("source", "", func(f *fakeLineage) {
			f.fail[parent] = codes.PermissionDenied
			f.fail["projects/other/locations/us"] = codes.PermissionDenied
		}),
		unit("project/location", "proj/us", func(f *fakeLineage) { f.fail[parent] = codes.Unavailable }),
	})
}
