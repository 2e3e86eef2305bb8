package pubsub

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"google.golang.org/grpc/codes"
)

// Topics carry p/topics, subscriptions p/subscriptions; a failed
// subscription listing is recorded at p/subscriptions and leaves the
// topics answered.
func TestUnits(t *testing.T) {
	c := start(t, pstest.ServerReactorOption{FuncName: "ListSubscriptions",
		Reactor: &failingList{project: "alpha", code: codes.Unavailable, times: -1}})
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "alpha/subscriptions" {
		t.Fatalf("errors %+v; want one at alpha/subscriptions", sink.Errors)
	}
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	topic := sink.Artifact("pubsub://alpha/topics/bf-1234-retry")
	if topic == nil || topic.Scope != "alpha/topics" || !cov.Answered(topic.Scope) {
		t.Errorf("topic %+v: want scope alpha/topics, answered", topic)
	}
	sub := sink.Artifact("pubsub://beta/subscriptions/bf-3003-audit")
	if sub == nil || sub.Scope != "beta/subscriptions" || !cov.Answered(sub.Scope) {
		t.Errorf("beta's subscription %+v: want scope beta/subscriptions, answered", sub)
	}
	if cov.Answered("alpha/subscriptions") {
		t.Error("alpha's failed subscription listing counts as answered")
	}
}

// A failed snapshot listing is recorded at p/snapshots alone: alpha's
// topics and subscriptions, and beta's snapshots, stay answered.
func TestSnapshotListingFailsItsUnitOnly(t *testing.T) {
	c := start(t, pstest.ServerReactorOption{FuncName: "ListSnapshots",
		Reactor: &failingList{project: "alpha", code: codes.PermissionDenied, times: -1}})
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "alpha/snapshots" || !strings.Contains(sink.Errors[0].Error, "list snapshots of project alpha") {
		t.Fatalf("errors %+v; want one at alpha/snapshots", sink.Errors)
	}
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	if cov.Answered("alpha/snapshots") {
		t.Error("alpha's failed snapshot listing counts as answered")
	}
	if sink.Artifact("pubsub://alpha/snapshots/bf-1234-seek") != nil {
		t.Error("a snapshot reported from a listing that failed")
	}
	for _, uri := range []string{"pubsub://alpha/topics/bf-1234-retry", "pubsub://alpha/subscriptions/orders-replay", "pubsub://beta/snapshots/audit-before"} {
		a := sink.Artifact(uri)
		if a == nil || !cov.Answered(a.Scope) {
			t.Errorf("%s: %+v; want it reported and answered", uri, a)
		}
	}
}

// Snapshots are listed even when the subscriptions were not: they are
// tied through their topics, not their subscriptions.
func TestSnapshotsListedWithoutSubscriptions(t *testing.T) {
	c := start(t, pstest.ServerReactorOption{FuncName: "ListSubscriptions",
		Reactor: &failingList{project: "alpha", code: codes.Unavailable, times: -1}})
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "alpha/subscriptions" {
		t.Fatalf("errors %+v; want one at alpha/subscriptions", sink.Errors)
	}
	if a := sink.Artifact("pubsub://alpha/snapshots/retry-checkpoint"); a == nil || a.BackfillID != "bf-1234" {
		t.Errorf("snapshot on the backfill's topic: %+v", a)
	}
}

// stall holds a list call until the test ends: a server that accepts and
// never answers.
type stall struct{ release chan struct{} }

func (s stall) React(any) (bool, any, error) {
	<-s.release
	return false, nil, nil
}

func TestStalledListingEndsAtTheTimeout(t *testing.T) {
	s := stall{release: make(chan struct{})}
	c := start(t, pstest.ServerReactorOption{FuncName: "ListSubscriptions", Reactor: s})
	t.Cleanup(func() { close(s.release) })
	c.Timeout = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(ctx, c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Collect outlived the test's deadline")
	}
	// pstest runs reactors under its lock, so the stall holds beta's calls
	// too: each unit that failed must say it timed out.
	got := map[string]string{}
	for _, e := range sink.Errors {
		got[e.Scope] = e.Error
		if !strings.Contains(e.Error, "no answer within 300ms") {
			t.Errorf("%s: %q; want the timeout named", e.Scope, e.Error)
		}
	}
	if _, ok := got["alpha/subscriptions"]; !ok {
		t.Errorf("errors %+v; want alpha/subscriptions timed out", sink.Errors)
	}
	if sink.Artifact("pubsub://alpha/topics/bf-1234-retry") == nil {
		t.Error("topics lost with the subscriptions")
	}
}

// endless answers every ListTopics with a page and a next token: the same
// token (or the same topic) again, or always fresh ones.
type endless struct {
	mu    sync.Mutex
	fresh bool
	n     int
}

func (e *endless) React(req any) (bool, any, error) {
	r := req.(*pubsubpb.ListTopicsRequest)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	name, next := r.Project+"/topics/bf-1-loop", "again"
	if e.fresh {
		name, next = fmt.Sprintf("%s/topics/bf-1-loop-%d", r.Project, e.n), fmt.Sprint(e.n)
	}
	return true, &pubsubpb.ListTopicsResponse{Topics: []*pubsubpb.Topic{{Name: name}}, NextPageToken: next}, nil
}

func TestEndlessPaginationStops(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprint("fresh=", fresh), func(t *testing.T) {
			e := &endless{fresh: fresh}
			c := start(t, pstest.ServerReactorOption{FuncName: "ListTopics", Reactor: e})
			c.maxPages = 50
			c.Projects = []string{"alpha"}
			err := collectors.Collect(context.Background(), c, collectors.NewTestSink())
			if err == nil || !strings.Contains(err.Error(), "listing is incomplete") {
				t.Fatalf("Collect = %v; want the listing stopped", err)
			}
			if strings.Count(err.Error(), "alpha") != 1 {
				t.Errorf("Collect = %v; want the project named once", err)
			}
			if e.n > 50 {
				t.Errorf("%d pages asked; want at most 50", e.n)
			}
		})
	}
}

func TestBadTimeoutsRejected(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "pubsub", "projects": []any{"p"}})
}

// Every listing says what it read, machinery or not (orders, events and
// the warehouse's subscription and snapshot count too); a listing that
// failed says nothing.
func TestReadsOfEveryUnit(t *testing.T) {
	c := start(t, pstest.ServerReactorOption{FuncName: "ListSubscriptions",
		Reactor: &failingList{project: "alpha", code: codes.Unavailable, times: -1}})
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	for _, r := range []struct {
		scope, what string
		read        int
	}{
		{"alpha/topics", "topics", 3},
		{"alpha/subscriptions", "subscriptions", 0},
		{"alpha/snapshots", "snapshots", 3},
		{"beta/topics", "topics", 1},
		{"beta/subscriptions", "subscriptions", 1},
		{"beta/snapshots", "snapshots", 1},
	} {
		if n, p := sink.Read(r.scope, r.what); n != r.read || p != 0 {
			t.Errorf("%s: read %d %s (%d in part), want %d", r.scope, n, r.what, p, r.read)
		}
	}
	for _, r := range sink.Reads {
		if r.Scope == "alpha/subscriptions" {
			t.Errorf("the failed listing says it read %+v", r)
		}
	}
}
