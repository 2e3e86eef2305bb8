package kafka

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// A retriable error (offsets being committed in a transaction) is tried
// again within the call's deadline (franz-go retries this one itself;
// remote.Retry covers the retriable errors kadm hands back): the group is
// read, no unit fails.
func TestRetriableErrorsAreRetried(t *testing.T) {
	f := newFakeCluster(t)
	f.commit("bf_1234_replay", 5)
	fetches := 0
	f.c.ControlKey(kmsg.OffsetFetch.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		fetches++
		r := req.(*kmsg.OffsetFetchRequest)
		resp := r.ResponseKind().(*kmsg.OffsetFetchResponse)
		resp.Version = r.Version
		resp.ErrorCode = kerr.UnstableOffsetCommit.Code
		for _, g := range r.Groups {
			rg := kmsg.NewOffsetFetchResponseGroup()
			rg.Group, rg.ErrorCode = g.Group, kerr.UnstableOffsetCommit.Code
			resp.Groups = append(resp.Groups, rg)
		}
		return resp, nil, true // once: the control function is dropped after
	})
	k := newCollector(t, f.c.ListenAddrs())
	sink, err := collectortest.Collect(t, k)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("err %v, unit errors %v", err, sink.Errors)
	}
	a := byName(sink)["bf_1234_replay"]
	if a.Attr("offsets") != "orders/0=5,orders/1=5,orders/2=5" || fetches != 1 {
		t.Errorf("offsets %q after %d refused fetches", a.Attr("offsets"), fetches)
	}
}
