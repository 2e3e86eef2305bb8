package gcs

import "testing"

// FaultFake lets faultmatrix_test.go (package gcs_test) break one unit of
// the fake between two collections.
type FaultFake struct{ f *fakeGCS }

// NewFaultFixture serves bucket proj-state, whose prefix checkpoints/
// holds BF-7001's checkpoint folder (no retention: BF020, BF021) next to a
// production job's, and bucket other-state with nothing of BF-7001's, so
// that failing proj-state is not failing the whole source. The collector
// is configured and Init-ed.
func NewFaultFixture(t *testing.T) (*Collector, *FaultFake) {
	f := newFake(t,
		obj("proj-state", "checkpoints/bf_7001_replay/chk-1/_metadata", 10, jan10, nil),
		obj("proj-state", "checkpoints/bf_7001_replay/chk-1/part-0", 20, jan12, nil),
		obj("proj-state", "checkpoints/prod/chk-9/_metadata", 10, jan10, nil),
		obj("other-state", "checkpoints/prod/chk-2/_metadata", 10, jan10, nil),
	)
	c := f.collector(t,
		Bucket{Name: "proj-state", Prefixes: []string{"checkpoints/", "savepoints/"}},
		Bucket{Name: "other-state", Prefixes: []string{"checkpoints/"}})
	return c, &FaultFake{f: f}
}

// Fail makes every call about bucket (prefix "") or the listing of its
// prefix answer status.
func (ff *FaultFake) Fail(bucket, prefix string, status int) { ff.f.Fail(bucket, prefix, status) }
