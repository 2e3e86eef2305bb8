package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/fixtest"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/remedy"
)

// kafkaFixture is an in-process Kafka (kfake) holding the replay group
// bf_7701_replay and a production group, both with committed offsets.
func kafkaFixture(t *testing.T) (*kfake.Cluster, *kadm.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)
	for _, g := range []string{"bf_7701_replay", "orders-indexer"} {
		var os kadm.Offsets
		os.AddOffset("orders", 0, 0, -1)
		if _, err := adm.CommitOffsets(context.Background(), g, os); err != nil {
			t.Fatal(err)
		}
	}
	return c, adm
}

func kafkaSource(t *testing.T, sel *correlate.Selector, addrs []string) *Kafka {
	t.Helper()
	k := New()
	k.Brokers, k.Cluster, k.Timeout = addrs, "events", 3*time.Second
	if err := k.Init(collectors.Env{Selector: sel}); err != nil {
		t.Fatal(err)
	}
	return k
}

func groups(t *testing.T, adm *kadm.Client) string {
	t.Helper()
	ls, err := adm.ListGroups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(ls.Groups(), ",")
}

// The replay's consumer group is deleted once delete_group is allowed, and
// the audit after finds it gone; a group a consumer joined since the audit
// is left alone.
func TestApplyKafka(t *testing.T) {
	const uri = "kafka://events/groups/bf_7701_replay"
	for _, joined := range []bool{false, true} {
		name := "unchanged"
		if joined {
			name = "a consumer joined since"
		}
		t.Run(name, func(t *testing.T) {
			c, adm := kafkaFixture(t)
			sel := correlate.MustSelector()
			plans := fixtest.PlanSource(t, "BF-7701", true, uri)
			src := kafkaSource(t, sel, c.ListenAddrs())
			in := fixtest.Audit(t, sel, plans, collectors.Instance{Name: "events", Type: "kafka", Collector: src})
			var finding string
			for f := range fixtest.Open(in, "BF-7701") {
				if strings.HasSuffix(f, " "+uri) {
					finding = f
				}
			}
			if finding == "" {
				t.Fatalf("no finding on %s: %v", uri, fixtest.Open(in, "BF-7701"))
			}
			if joined {
				cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumerGroup("bf_7701_replay"), kgo.ConsumeTopics("orders"))
				if err != nil {
					t.Fatal(err)
				}
				go func() {
					for !cl.PollFetches(context.Background()).IsClientClosed() {
					}
				}()
				t.Cleanup(cl.Close)
				for i := 0; i < 300; i++ {
					ds, err := adm.DescribeGroups(context.Background(), "bf_7701_replay")
					if err == nil && ds["bf_7701_replay"].State == "Stable" {
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
			sys, err := newKafka(src)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sys.Close() })
			res := fixtest.Apply(t, in, "BF-7701", map[string]remedy.Actor{"events": sys}, fixtest.OpenStore(t), remedy.DeleteGroup)
			want, left := fix.StatusApplied, "orders-indexer"
			if joined {
				want, left = fix.StatusSkipped, "bf_7701_replay,orders-indexer"
			}
			if got := fixtest.StatusOf(res, remedy.DeleteGroup); got != want {
				t.Fatalf("delete_group: %s, want %s (%+v)", got, want, res)
			}
			if joined {
				for _, r := range res {
					if r.Item.Action != nil && r.Item.Action.Name == remedy.DeleteGroup && !strings.Contains(r.Reason, "members was \"0\", is \"1\"") {
						t.Errorf("skipped for %q, want the new member named", r.Reason)
					}
				}
			}
			if got := groups(t, adm); got != left {
				t.Errorf("groups after: %s, want %s", got, left)
			}
			if !joined {
				after := fixtest.Open(fixtest.Audit(t, sel, plans, collectors.Instance{Name: "events", Type: "kafka", Collector: kafkaSource(t, sel, c.ListenAddrs())}), "BF-7701")
				if after[finding] {
					t.Errorf("after: %v; want %s resolved", after, finding)
				}
			}
		})
	}
}
