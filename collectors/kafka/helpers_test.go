package kafka

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// fakeCluster is an in-process Kafka (kfake speaks the protocol) holding
// topic orders (3 partitions) with 10 records in each partition.
type fakeCluster struct {
	t     *testing.T
	c     *kfake.Cluster
	admin *kadm.Client
}

const recordsPerPartition = 10

func newFakeCluster(t *testing.T) *fakeCluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for p := int32(0); p < 3; p++ {
		for i := 0; i < recordsPerPartition; i++ {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: p, Value: []byte("x")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return &fakeCluster{t: t, c: c, admin: kadm.NewClient(cl)}
}

// commit commits offset at in every partition of orders for group.
func (f *fakeCluster) commit(group string, at int64) {
	f.t.Helper()
	var os kadm.Offsets
	for p := int32(0); p < 3; p++ {
		os.AddOffset("orders", p, at, -1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := f.admin.CommitOffsets(ctx, group, os)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

// join starts a consumer in group and waits until the coordinator lists it
// as a member; it leaves the group when the test ends.
func (f *fakeCluster) join(group string) {
	f.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.c.ListenAddrs()...), kgo.ConsumerGroup(group), kgo.ConsumeTopics("orders"))
	if err != nil {
		f.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			fs := cl.PollFetches(context.Background())
			if fs.IsClientClosed() {
				return
			}
		}
	}()
	f.t.Cleanup(func() { cl.Close(); <-done })
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		ds, err := f.admin.DescribeGroups(context.Background(), group)
		if err == nil && len(ds[group].Members) > 0 && ds[group].State == "Stable" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.t.Fatalf("consumer never joined %s", group)
}

// failFor makes every request of key about group fail (an authorization
// error from the coordinator), the other groups answering as usual.
func (f *fakeCluster) failFor(key kmsg.Key, group string) {
	f.c.ControlKey(key.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		switch r := req.(type) {
		case *kmsg.DescribeGroupsRequest:
			if len(r.Groups) != 1 || r.Groups[0] != group {
				return nil, nil, false
			}
			f.c.KeepControl()
			resp := r.ResponseKind().(*kmsg.DescribeGroupsResponse)
			g := kmsg.NewDescribeGroupsResponseGroup()
			g.Group, g.ErrorCode = group, kerr.GroupAuthorizationFailed.Code
			resp.Groups = append(resp.Groups, g)
			return resp, nil, true
		case *kmsg.OffsetFetchRequest:
			named := r.Group == group
			for _, g := range r.Groups {
				named = named || g.Group == group
			}
			if !named {
				return nil, nil, false
			}
			f.c.KeepControl()
			return nil, errors.New("connection dropped"), true // the broker hangs up
		}
		return nil, nil, false
	})
}

// newCollector is a collector reading f through its real client set-up.
func newCollector(t *testing.T, addrs []string) *Kafka {
	t.Helper()
	k := New()
	k.Brokers = addrs
	k.Cluster = "events"
	k.Timeout = 3 * time.Second
	k.Retry = remote.RetryPolicy{Attempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := k.Init(collectors.Env{Selector: correlate.MustSelector()}); err != nil {
		t.Fatal(err)
	}
	return k
}
