package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

func byName(sink *collectors.TestSink) map[string]model.Artifact {
	out := map[string]model.Artifact{}
	for _, a := range sink.Artifacts {
		out[a.Name] = a
	}
	return out
}

// The replay's group is reported with its committed offsets and lag; the
// normal group is not machinery and is left out.
func TestReplayGroupIsACheckpoint(t *testing.T) {
	f := newFakeCluster(t)
	f.commit("bf_1234_replay", 7)
	f.commit("orders-indexer", 10)
	k := newCollector(t, f.c.ListenAddrs())
	sink, err := collectortest.Collect(t, k)
	if err != nil {
		t.Fatal(err)
	}
	if errs := sink.Errors; len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	got := byName(sink)
	if len(got) != 1 {
		t.Fatalf("artifacts %v, want only bf_1234_replay", got)
	}
	a, ok := got["bf_1234_replay"]
	if !ok {
		t.Fatalf("no artifact for bf_1234_replay: %v", got)
	}
	want := map[string]string{
		model.AttrCheckpointType: "consumer_group", model.AttrMembers: "0", model.AttrLag: "9",
		model.AttrOffsets: "orders/0=7,orders/1=7,orders/2=7", AttrTopics: "orders", AttrGroupState: "Empty",
		AttrBootstrap: f.c.ListenAddrs()[0],
	}
	for key, v := range want {
		if a.Attr(key) != v {
			t.Errorf("%s = %q, want %q", key, a.Attr(key), v)
		}
	}
	if a.Kind != model.KindCheckpoint || a.System != "kafka" || a.State != model.StateActive ||
		a.URI != "kafka://events/groups/bf_1234_replay" || a.Scope != "bf_1234_replay" ||
		!model.SameID(a.BackfillID, "BF-1234") || a.Correlation != "name" || !a.ModifiedAt.IsZero() {
		t.Errorf("artifact %+v", a)
	}
}

// A consumer still running in the replay group shows as a member.
func TestLiveConsumerIsAMember(t *testing.T) {
	f := newFakeCluster(t)
	f.commit("bf_1234_replay", 3)
	f.join("bf_1234_replay")
	sink, err := collectortest.Collect(t, newCollector(t, f.c.ListenAddrs()))
	if err != nil {
		t.Fatal(err)
	}
	a := byName(sink)["bf_1234_replay"]
	if a.Attr(model.AttrMembers) != "1" || a.Attr(AttrGroupState) != "Stable" {
		t.Errorf("members %q state %q, want 1 Stable", a.Attr(model.AttrMembers), a.Attr(AttrGroupState))
	}
}

// The groups allow-list and the plan's assets both decide what is read.
func TestAllowListAndAssets(t *testing.T) {
	f := newFakeCluster(t)
	f.commit("bf_1234_replay", 3)
	f.commit("bf_1235_replay", 3)
	f.commit("ledger-rebuild", 3)
	k := newCollector(t, f.c.ListenAddrs())
	k.Groups = []string{"bf_1234_.*", "ledger-.*"}
	sel := correlate.MustSelector()
	if err := k.Init(collectors.Env{Selector: sel}); err != nil {
		t.Fatal(err)
	}
	sel.AddAssets([]model.Backfill{{ID: "BF-1240", AssetsToRemove: []string{"kafka://events/groups/ledger-rebuild"}}})
	sink, err := collectortest.Collect(t, k)
	if err != nil {
		t.Fatal(err)
	}
	got := byName(sink)
	if _, ok := got["bf_1235_replay"]; ok || len(got) != 2 {
		t.Errorf("got %v, want bf_1234_replay and ledger-rebuild", got)
	}
	if a := got["ledger-rebuild"]; a.BackfillID != "BF-1240" || a.Correlation != "asset" {
		t.Errorf("ledger-rebuild tied to %q by %q, want BF-1240 by asset", a.BackfillID, a.Correlation)
	}
}

// A group whose describe or offset fetch fails is an error at its own unit,
// not emitted; the other groups are still read.
func TestFailingGroupFailsItsUnit(t *testing.T) {
	for _, key := range []kmsg.Key{kmsg.DescribeGroups, kmsg.OffsetFetch} {
		t.Run(key.Name(), func(t *testing.T) {
			f := newFakeCluster(t)
			f.commit("bf_1234_replay", 3)
			f.commit("bf_1235_replay", 3)
			f.failFor(key, "bf_1234_replay")
			k := newCollector(t, f.c.ListenAddrs())
			k.Timeout = time.Second
			start := time.Now()
			sink, err := collectortest.Collect(t, k)
			if err != nil {
				t.Fatalf("a group's failure failed the source: %v", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
			got := byName(sink)
			if _, ok := got["bf_1234_replay"]; ok {
				t.Error("the failed group was emitted")
			}
			if _, ok := got["bf_1235_replay"]; !ok {
				t.Error("the other group was not read")
			}
			errs := sink.Errors
			if len(errs) != 1 || errs[0].Scope != "bf_1234_replay" {
				t.Errorf("errors %v, want one at bf_1234_replay", errs)
			}
		})
	}
}

// max_groups bounds the groups read; the ones past it are errors at their
// unit, never silently left out.
func TestMaxGroups(t *testing.T) {
	f := newFakeCluster(t)
	f.commit("bf_1234_replay", 3)
	f.commit("bf_1235_replay", 3)
	k := newCollector(t, f.c.ListenAddrs())
	k.MaxGroups = 1
	sink, err := collectortest.Collect(t, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Artifacts) != 1 || len(sink.Errors) != 1 || sink.Errors[0].Scope != "bf_1235_replay" {
		t.Errorf("artifacts %d, errors %v", len(sink.Artifacts), sink.Errors)
	}
}

// A cluster that is down fails the whole source.
func TestClusterDownFailsTheSource(t *testing.T) {
	f := newFakeCluster(t)
	k := newCollector(t, f.c.ListenAddrs())
	k.Timeout = time.Second
	f.c.Close()
	_, err := collectortest.Collect(t, k)
	if err == nil || !strings.Contains(err.Error(), "list groups") {
		t.Errorf("err = %v, want the listing's failure", err)
	}
}

// Deleting the group through the same calls the fix action uses: the next
// collection no longer reports it.
func TestDeletedGroupIsGone(t *testing.T) {
	f := newFakeCluster(t)
	f.commit("bf_1234_replay", 3)
	k := newCollector(t, f.c.ListenAddrs())
	adm, release, err := k.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx := context.Background()
	if _, n, found, err := k.Describe(ctx, adm, "bf_1234_replay"); err != nil || !found || n != 0 {
		t.Fatalf("describe: %d %v %v", n, found, err)
	}
	if err := k.DeleteGroup(ctx, adm, "bf_1234_replay"); err != nil {
		t.Fatal(err)
	}
	if _, _, found, err := k.Describe(ctx, adm, "bf_1234_replay"); err != nil || found {
		t.Fatalf("after delete: found %v, %v", found, err)
	}
	if err := k.DeleteGroup(ctx, adm, "bf_1234_replay"); err != nil {
		t.Errorf("deleting a gone group: %v", err)
	}
	sink, err := collectortest.Collect(t, k)
	if err != nil || len(sink.Artifacts) != 0 || len(sink.Errors) != 0 {
		t.Errorf("after delete: %v %v %v", sink.Artifacts, sink.Errors, err)
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	inst := collectortest.DecodeSample(t, "sample.yaml")
	k := inst.Collector.(*Kafka)
	if len(k.Brokers) != 2 || k.Cluster != "events" || k.MaxGroups != 1000 || k.Timeout != 30*time.Second {
		t.Errorf("decoded %+v", k)
	}
}

func TestBadConfig(t *testing.T) {
	entry := map[string]any{"type": "kafka", "name": "k", "brokers": []any{"kafka:9092"}}
	collectortest.RejectsBadTimeouts(t, entry)
	t.Setenv("BFAUDIT_TEST_KAFKA_PW", "s3cret-pw")
	for key, bad := range map[string]map[string]any{
		"brokers":           {"brokers": []any{}},
		"brokers[0]":        {"brokers": []any{"kafka"}},
		"groups[0]":         {"groups": []any{"bf_("}},
		"max_groups":        {"max_groups": 0},
		"sasl.mechanism":    {"sasl": map[string]any{"mechanism": "gssapi", "username": "u", "password_env": "BFAUDIT_TEST_KAFKA_PW"}},
		"sasl.password_env": {"sasl": map[string]any{"mechanism": "plain", "username": "u", "password_env": "BFAUDIT_TEST_KAFKA_UNSET"}},
		"sasl.username":     {"sasl": map[string]any{"mechanism": "plain", "password_env": "BFAUDIT_TEST_KAFKA_PW"}},
		"ca_file":           {"ca_file": "/nonexistent/ca.pem"},
	} {
		e := map[string]any{"type": "kafka", "name": "k", "brokers": []any{"kafka:9092"}}
		for k, v := range bad {
			e[k] = v
		}
		_, err := collectors.Decode(e, collectors.Env{})
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: err = %v, want it named", key, err)
		} else if strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("%s: the password is in the error: %v", key, err)
		}
	}
	for _, mech := range []string{"plain", "scram-sha-256", "SCRAM-SHA-512"} {
		e := map[string]any{"type": "kafka", "name": "k", "brokers": []any{"kafka:9092"}, "tls": true,
			"sasl": map[string]any{"mechanism": mech, "username": "u", "password_env": "BFAUDIT_TEST_KAFKA_PW"}}
		if _, err := collectors.Decode(e, collectors.Env{}); err != nil {
			t.Errorf("%s: %v", mech, err)
		}
	}
}

// The listing says how many groups it read, the untied orders-indexer
// and billing too; each tied group counts at its own unit, in part when
// its describe failed.
func TestReadsOfEveryUnit(t *testing.T) {
	f := newFakeCluster(t)
	f.commit("bf_1234_replay", 7)
	f.commit("bf_2001_replay", 3)
	f.commit("orders-indexer", 10)
	f.commit("billing", 1)
	f.failFor(kmsg.DescribeGroups, "bf_2001_replay")
	k := newCollector(t, f.c.ListenAddrs())
	k.Timeout = time.Second
	sink, err := collectortest.Collect(t, k)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		scope         string // "" is every unit
		read, partial int
	}{
		{"", 4, 1},
		{GroupScope("bf_1234_replay"), 1, 0},
		{GroupScope("bf_2001_replay"), 1, 1},
	} {
		if n, p := sink.Read(r.scope, "consumer groups"); n != r.read || p != r.partial {
			t.Errorf("%q: read %d consumer groups (%d in part), want %d (%d in part): %+v", r.scope, n, p, r.read, r.partial, sink.Reads)
		}
	}
}
