package datalineage

import (
	"testing"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"google.golang.org/grpc/codes"
)

// TestFaultMatrix lists the units the collector answers for: the whole
// source, one project and location (its links), and that location's runs
// (the builds).
//
// The matrix proves its point on findings: it needs run 1 to hold a
// finding resting on each unit. This collector emits lineage only (edges
// and builds), and no rule yet turns lineage into a finding (the lineage
// rules and plan targets are not in yet), so run 1 would have nothing to
// protect and the harness would fail on the fixture, not on the
// collector. Until then the matrix is skipped with this reason, and
// datalineage_test.go checks the same promise directly: a failing
// location, a failing runs listing, a stalled server and a stuck pager
// are each recorded at their unit only, and a unit that fails emits
// nothing (TestFailingLocationStaysInItsUnit, TestFailingRunsStayInTheRunsUnit,
// TestStalledServerEndsWithinTheDeadline, TestPagerThatDoesNotAdvance).
func TestFaultMatrix(t *testing.T) {
	t.Skip("no rule judges lineage yet: the fault matrix needs a finding resting on each unit (see the comment above); enable once a lineage rule fires on the fixture's edges and builds")
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
		unit("runs", "proj/us/runs", func(f *fakeLineage) { f.fail[parent+"/processes/revenue_report/runs"] = codes.Internal }),
	})
}
