package s3_test

import (
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/s3"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// TestFaultMatrix fails each unit the S3 collector answers for (the
// whole source, one bucket, one prefix, one account whose role is
// refused) on a second run and lets the harness prove nothing it
// reported is ticked, closed or resolved.
func TestFaultMatrix(t *testing.T) {
	unit := func(kind, scope string, breakIt func(*s3.FaultFake)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			c, ff := s3.NewFaultFixture(t)
			return c, func() { breakIt(ff) }
		}}
	}
	bucket := model.JoinScope("111111111111", "proj-scratch")
	faultmatrix.Run(t, "s3", []faultmatrix.Unit{
		unit("source down", "", func(ff *s3.FaultFake) { ff.Down() }),
		unit("source refused", "", func(ff *s3.FaultFake) { ff.Fail("proj-scratch", "", 403); ff.Fail("other-scratch", "", 403) }),
		unit("bucket 500", bucket, func(ff *s3.FaultFake) { ff.Fail("proj-scratch", "", 500) }),
		unit("bucket stalled", bucket, func(ff *s3.FaultFake) { ff.Stall("proj-scratch") }),
		unit("bucket answering a web page", bucket, func(ff *s3.FaultFake) { ff.Garbage("proj-scratch") }),
		unit("prefix 500", s3.PrefixScope("111111111111", "proj-scratch", "tmp/"), func(ff *s3.FaultFake) { ff.Fail("proj-scratch", "tmp/", 500) }),
		unit("account's role refused", model.JoinScope("222222222222", "other-scratch"), func(ff *s3.FaultFake) { ff.Refuse(s3.RefusedRole) }),
	})
}
