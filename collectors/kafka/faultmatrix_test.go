package kafka

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// matrixGroup is the replay group BF-7001 left behind: its committed
// offsets still held long after the backfill completed (BF020, BF021).
const matrixGroup = "bf_7001_replay"

// unit builds a cluster holding the group (and an untied one) and breaks
// it with breakIt before the second run.
func unit(kind, scope string, breakIt func(f *fakeCluster)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		f := newFakeCluster(t)
		f.commit(matrixGroup, 4)
		f.commit("orders-indexer", 10)
		k := newCollector(t, f.c.ListenAddrs())
		k.Timeout = time.Second
		return k, func() { breakIt(f) }
	}}
}

// failListing makes every ListGroups request answer an authorization
// error: the cluster's listing fails.
func failListing(f *fakeCluster) {
	f.c.ControlKey(kmsg.ListGroups.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		f.c.KeepControl()
		resp := req.ResponseKind().(*kmsg.ListGroupsResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return resp, nil, true
	})
}

func TestFaultMatrix(t *testing.T) {
	faultmatrix.Run(t, "kafka", []faultmatrix.Unit{
		unit("source", "", func(f *fakeCluster) { f.c.Close() }), // cluster down
		unit("source", "", failListing),                          // listing refused
		unit("group", GroupScope(matrixGroup), func(f *fakeCluster) { f.failFor(kmsg.DescribeGroups, matrixGroup) }),
		unit("group", GroupScope(matrixGroup), func(f *fakeCluster) { f.failFor(kmsg.OffsetFetch, matrixGroup) }),
	})
}
