package gcs_test

import (
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/gcs"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// TestFaultMatrix fails each unit the GCS collector answers for (the
// whole source, one bucket, one prefix) on a second run and lets the
// harness prove nothing it reported is ticked, closed or resolved.
func TestFaultMatrix(t *testing.T) {
	unit := func(kind, scope string, breakIt func(*gcs.FaultFake)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			c, ff := gcs.NewFaultFixture(t)
			return c, func() { breakIt(ff) }
		}}
	}
	faultmatrix.Run(t, "gcs", []faultmatrix.Unit{
		unit("source", "", func(ff *gcs.FaultFake) { ff.Fail("proj-state", "", 403); ff.Fail("other-state", "", 403) }),
		unit("bucket", "proj-state", func(ff *gcs.FaultFake) { ff.Fail("proj-state", "", 404) }),
		unit("prefix", gcs.PrefixScope("proj-state", "checkpoints/"), func(ff *gcs.FaultFake) { ff.Fail("proj-state", "checkpoints/", 500) }),
	})
}
