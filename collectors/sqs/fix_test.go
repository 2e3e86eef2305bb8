package sqs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// resultOf is the result of an action on one artifact.
func resultOf(results []fix.Result, action, uri string) fix.Result {
	for _, r := range results {
		if r.Item.Action != nil && r.Item.Action.Name == action && r.Item.ArtifactURI == uri {
			return r
		}
	}
	return fix.Result{}
}

// BF-7001's queues, topic and subscription, applied through the actor
// against the fakes: nothing irreversible runs without fix.allow; an empty
// queue, the subscription and the topic go once allowed; the retry queue,
// which holds messages, is never deleted until a purge is allowed too, and
// then purged and deleted; each act is recorded.
func TestApplyQueuesAndSubscriptions(t *testing.T) {
	e := newEstate(t)
	e.addQueue(fakeQueue{name: "bf-7001-retries", visible: 3, inFlight: 1})
	e.addQueue(fakeQueue{name: "bf-7001-scratch"})
	replay := createTopic(t, e, "bf-7001-replay")
	if _, err := snsClient(e).Subscribe(context.Background(), subscribeInput(replay, "lambda", "arn:aws:lambda:eu-west-1:111111111111:function:sink")); err != nil {
		t.Fatal(err)
	}
	sel := correlate.MustSelector()
	c := newOn(t, e.URL)
	in := fixtest.Audit(t, sel, fixtest.PlanSource(t, "BF-7001", true), collectors.Instance{Name: "aws-queues", Type: "sqs", Collector: c})
	open := fixtest.Open(in, "BF-7001")
	retries, scratch, topic := q+"bf-7001-retries", q+"bf-7001-scratch", top+"bf-7001-replay"
	for _, uri := range []string{retries, scratch, topic} {
		if !open["BF006 "+uri] {
			t.Fatalf("no BF006 on %s: %v", uri, open)
		}
	}
	actor, err := newActor(c)
	if err != nil {
		t.Fatal(err)
	}
	systems := map[string]remedy.Actor{"aws-queues": actor}
	store := fixtest.OpenStore(t)

	res := fixtest.Apply(t, in, "BF-7001", systems, store)
	for _, act := range []string{remedy.DeleteQueue, PurgeQueue, remedy.DeleteSubscription, remedy.DeleteTopic} {
		if got := fixtest.StatusOf(res, act); got != fix.StatusNotAllowed {
			t.Errorf("%s without fix.allow: %s", act, got)
		}
	}

	res = fixtest.Apply(t, in, "BF-7001", systems, store, remedy.DeleteQueue, remedy.DeleteSubscription, remedy.DeleteTopic)
	if r := resultOf(res, remedy.DeleteQueue, scratch); r.Status != fix.StatusApplied || e.queue(baseAccount, mainRegion, "bf-7001-scratch") != nil {
		t.Errorf("the empty queue: %+v", r)
	}
	if r := resultOf(res, remedy.DeleteQueue, retries); r.Status != fix.StatusFailed || !strings.Contains(r.Reason, "holds 4 messages") ||
		e.queue(baseAccount, mainRegion, "bf-7001-retries") == nil {
		t.Errorf("the queue holding messages was not refused: %+v", r)
	}
	if got := fixtest.StatusOf(res, remedy.DeleteSubscription); got != fix.StatusApplied {
		t.Errorf("unsubscribe: %s %+v", got, res)
	}
	if got := fixtest.StatusOf(res, remedy.DeleteTopic); got != fix.StatusApplied {
		t.Errorf("delete topic: %s", got)
	}

	res = fixtest.Apply(t, in, "BF-7001", systems, store, PurgeQueue, remedy.DeleteQueue)
	if p, d := resultOf(res, PurgeQueue, retries), resultOf(res, remedy.DeleteQueue, retries); p.Status != fix.StatusApplied || d.Status != fix.StatusApplied {
		t.Errorf("purge then delete: %+v; %+v", p, d)
	}
	if e.queue(baseAccount, mainRegion, "bf-7001-retries") != nil {
		t.Error("the retry queue is still there")
	}
	recorded, err := store.FixActions(context.Background(), "BF-7001")
	if err != nil {
		t.Fatal(err)
	}
	var applied []string
	for _, r := range recorded {
		if r.Result == fix.StatusApplied {
			applied = append(applied, r.Action+" "+r.ArtifactURI)
		}
	}
	if len(applied) != 5 {
		t.Errorf("applied and recorded: %v", applied)
	}
	// Gone since: nothing to do.
	obs, err := actor.Read(context.Background(), &model.Artifact{URI: retries}, remedy.Action{Name: remedy.DeleteQueue})
	if err != nil || obs.Found {
		t.Errorf("Read of a deleted queue: %+v %v", obs, err)
	}
}

// A queue deleted and made again under its name since the audit, or one
// that received messages since, is left alone.
func TestAChangedQueueIsLeftAlone(t *testing.T) {
	e := newEstate(t)
	e.addQueue(fakeQueue{name: "bf-7001-scratch"})
	e.addQueue(fakeQueue{name: "bf-7001-spill", visible: 2})
	sel := correlate.MustSelector()
	c := newOn(t, e.URL, func(c *Collector) { c.SNS = false })
	in := fixtest.Audit(t, sel, fixtest.PlanSource(t, "BF-7001", true), collectors.Instance{Name: "aws-queues", Type: "sqs", Collector: c})
	e.addQueue(fakeQueue{name: "bf-7001-scratch", created: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)})
	e.queue(baseAccount, mainRegion, "bf-7001-spill").visible = 5
	actor, _ := newActor(c)
	res := fixtest.Apply(t, in, "BF-7001", map[string]remedy.Actor{"aws-queues": actor}, fixtest.OpenStore(t), PurgeQueue, remedy.DeleteQueue)
	if r := resultOf(res, remedy.DeleteQueue, q+"bf-7001-scratch"); r.Status != fix.StatusSkipped || !strings.Contains(r.Reason, "created") {
		t.Errorf("a queue made again: %+v", r)
	}
	if r := resultOf(res, PurgeQueue, q+"bf-7001-spill"); r.Status != fix.StatusSkipped || !strings.Contains(r.Reason, "messages") {
		t.Errorf("a queue that received messages since: %+v", r)
	}
	if e.queue(baseAccount, mainRegion, "bf-7001-scratch") == nil || e.queue(baseAccount, mainRegion, "bf-7001-spill").visible != 5 {
		t.Error("a changed queue was acted on")
	}
}
