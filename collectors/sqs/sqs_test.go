package sqs

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssns "github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// standard fills the estate with a backfill's queues and topics among
// others': the retry queue (named for BF-7001, holding messages) and its
// dead-letter queue (tied through it), a spill queue whose dead-letter
// queue it shares with production (so that one is not tied), a tagged
// scratch queue, a kept one, production's and a bfloat16 one; the replay's
// topic with a subscription, a tagged topic, and a production topic one of
// whose subscriptions feeds the retry queue. It returns the subscription
// ARNs by what they feed.
func standard(t *testing.T, e *estate) map[string]string {
	t.Helper()
	e.addQueue(fakeQueue{name: "bf-7001-retries", visible: 3, inFlight: 1, redriveTo: "replay-dlq", tags: map[string]string{"owner": "data-eng"}})
	e.addQueue(fakeQueue{name: "replay-dlq", visible: 2})
	e.addQueue(fakeQueue{name: "bf-7001-spill", redriveTo: "shared-dlq"})
	e.addQueue(fakeQueue{name: "orders", visible: 40, redriveTo: "shared-dlq"})
	e.addQueue(fakeQueue{name: "shared-dlq", visible: 1})
	e.addQueue(fakeQueue{name: "scratch", tags: map[string]string{"backfill_id": "bf-7001"}})
	e.addQueue(fakeQueue{name: "kept", tags: map[string]string{"backfill_id": "bf-7001",
		model.KeepUntilKey: "2027-01-31", model.KeepReasonKey: "finance reads it until the audit closes"}})
	e.addQueue(fakeQueue{name: "bf16-training", visible: 9})

	client := snsClient(e)
	topic := func(name string) string { return createTopic(t, e, name) }
	subscribe := func(topicARN, protocol, endpoint string) string {
		out, err := client.Subscribe(context.Background(), subscribeInput(topicARN, protocol, endpoint))
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(out.SubscriptionArn)
	}
	replay, orders, notify := topic("bf-7001-replay"), topic("orders-events"), topic("notifications")
	e.topicTags[notify] = map[string]string{"backfill": "BF-7001"}
	queueARN := func(name string) string { return "arn:aws:sqs:" + mainRegion + ":" + baseAccount + ":" + name }
	return map[string]string{
		"replay-sink": subscribe(replay, "lambda", "arn:aws:lambda:"+mainRegion+":"+baseAccount+":function:replay-sink"),
		"retries":     subscribe(orders, "sqs", queueARN("bf-7001-retries")),
		"orders":      subscribe(orders, "sqs", queueARN("orders")),
	}
}

func snsClient(e *estate) *awssns.Client {
	return awssns.NewFromConfig(smithy.AWSConfig(e.URL), func(o *awssns.Options) { o.Region = mainRegion })
}

// createTopic makes a topic in goaws (the base account's main region),
// through the SDK.
func createTopic(t *testing.T, e *estate, name string) string {
	t.Helper()
	out, err := snsClient(e).CreateTopic(context.Background(), &awssns.CreateTopicInput{Name: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.TopicArn)
}

func subscribeInput(topicARN, protocol, endpoint string) *awssns.SubscribeInput {
	return &awssns.SubscribeInput{TopicArn: aws.String(topicARN), Protocol: aws.String(protocol), Endpoint: aws.String(endpoint), ReturnSubscriptionArn: true}
}

func byURI(sink *collectors.TestSink) map[string]model.Artifact {
	out := map[string]model.Artifact{}
	for _, a := range sink.Artifacts {
		out[a.URI] = a
	}
	return out
}

func collect(t *testing.T, c collectors.Collector) *collectors.TestSink {
	t.Helper()
	sink, err := collectortest.Collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) > 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	return sink
}

const (
	q   = "sqs://aws-queues/111111111111/eu-west-1/"
	top = "sns://aws-queues/111111111111/eu-west-1/"
)

func TestQueuesAndSubscriptionsOfABackfill(t *testing.T) {
	e := newEstate(t)
	subs := standard(t, e)
	sink := collect(t, newOn(t, e.URL))
	got := byURI(sink)

	retries := got[q+"bf-7001-retries"]
	if retries.Kind != model.KindQueue || retries.BackfillID != "bf-7001" || retries.Correlation != "name" || retries.Owner != "data-eng" ||
		retries.Scope != "111111111111/eu-west-1/sqs/bf-7001-retries" {
		t.Errorf("retry queue = %+v", retries)
	}
	for k, want := range map[string]string{model.AttrMessages: "4", AttrMessagesVisible: "3", AttrMessagesInFlight: "1", AttrMessagesDelayed: "0",
		AttrDeadLetterTarget: "arn:aws:sqs:eu-west-1:111111111111:replay-dlq", AttrMaxReceiveCount: "5", AttrMessageRetention: "96h0m0s"} {
		if retries.Attr(k) != want {
			t.Errorf("retry queue %s = %q, want %q", k, retries.Attr(k), want)
		}
	}
	if !retries.CreatedAt.Time().Equal(auditTime.AddDate(0, -1, 0)) {
		t.Errorf("created %s", retries.CreatedAt)
	}
	dlq := got[q+"replay-dlq"]
	if dlq.BackfillID != "bf-7001" || dlq.Correlation != correlationRedrive || dlq.Attr(AttrDeadLetterSources) != "bf-7001-retries" || dlq.Attr(model.AttrMessages) != "2" {
		t.Errorf("dead-letter queue tied through its source = %+v", dlq)
	}
	if a := got[q+"scratch"]; a.Correlation != "label" || a.Attr(model.AttrMessages) != "0" {
		t.Errorf("tagged queue = %+v", a)
	}
	if a := got[q+"kept"]; a.Attr(model.AttrKeepUntil) != "2027-01-31" || a.Attr(model.AttrKeepReason) != "finance reads it until the audit closes" {
		t.Errorf("kept queue = %+v", a)
	}
	for _, name := range []string{"orders", "shared-dlq", "bf16-training"} {
		if _, ok := got[q+name]; ok {
			t.Errorf("queue %s is tied, and is no backfill's (shared-dlq also receives production's failures)", name)
		}
	}
	if _, ok := got[q+"bf-7001-spill"]; !ok {
		t.Error("the spill queue is not tied")
	}

	if a := got[top+"bf-7001-replay"]; a.Kind != model.KindQueue || a.Attr(model.AttrConsumers) != "1" || a.Correlation != "name" {
		t.Errorf("replay topic = %+v", a)
	}
	if a := got[top+"notifications"]; a.BackfillID != "BF-7001" || a.Correlation != "label" || a.Attr(model.AttrConsumers) != "0" {
		t.Errorf("tagged topic = %+v", a)
	}
	if _, ok := got[top+"orders-events"]; ok {
		t.Error("the production topic is tied")
	}
	sub := func(arn string) model.Artifact {
		topic, id, _ := subscriptionOf(arn)
		return got[top+topic+"/"+id]
	}
	if a := sub(subs["replay-sink"]); a.Kind != model.KindSubscription || a.Correlation != "name" || a.Attr(AttrProtocol) != "lambda" ||
		a.Attr(AttrEndpoint) != "arn:aws:lambda:eu-west-1:111111111111:function:replay-sink" || a.Attr(AttrSubscriptionARN) != subs["replay-sink"] {
		t.Errorf("the replay topic's subscription = %+v", a)
	}
	if a := sub(subs["retries"]); a.BackfillID != "bf-7001" || a.Attr(AttrTopic) != "arn:aws:sns:eu-west-1:111111111111:orders-events" {
		t.Errorf("production's subscription feeding the retry queue = %+v", a)
	}
	if a := sub(subs["orders"]); a.URI != "" {
		t.Errorf("production's own subscription is tied: %+v", a)
	}
	if len(got) != 9 {
		t.Errorf("%d artifacts, want 9 (5 queues, 2 topics, 2 subscriptions): %v", len(got), slices.Sorted(mapsKeys(got)))
	}
	reads := map[string]int{}
	for _, r := range sink.Reads {
		if strings.HasPrefix(r.Scope, "111111111111/eu-west-1/sqs/") {
			r.Scope = "111111111111/eu-west-1"
		}
		reads[r.Scope+" "+r.What] += r.Read
	}
	if reads["111111111111/eu-west-1 queues"] != 8 || reads["111111111111/eu-west-1/sns topics"] != 3 || reads["111111111111/eu-west-1/sns subscriptions"] != 3 {
		t.Errorf("reads = %v", reads)
	}
}

func mapsKeys(m map[string]model.Artifact) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// A queue whose attributes fail is an error at its scope; the others, and
// SNS, stand.
func TestAQueueThatFailsIsAnErrorAtItsScope(t *testing.T) {
	e := newEstate(t)
	standard(t, e)
	e.failQueueAttributes("scratch")
	sink, err := collectortest.Collect(t, newOn(t, e.URL))
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "111111111111/eu-west-1/sqs/scratch" || !strings.Contains(sink.Errors[0].Error, "attributes of queue scratch") {
		t.Fatalf("errors = %+v, want one at the queue", sink.Errors)
	}
	got := byURI(sink)
	if _, ok := got[q+"scratch"]; ok {
		t.Error("the queue whose attributes failed was emitted")
	}
	if _, ok := got[q+"bf-7001-retries"]; !ok {
		t.Error("the other queues were not read")
	}
}

// A subscription feeding a queue whose tags did not read cannot be said
// untied: an error at its scope.
func TestASubscriptionFeedingAnUnreadQueueIsNotConcludedUntied(t *testing.T) {
	e := newEstate(t)
	subs := standard(t, e)
	c := newOn(t, e.URL)
	sink := &collectors.TestSink{}
	p, err := c.PlaceOf(context.Background(), baseAccount, mainRegion)
	if err != nil {
		t.Fatal(err)
	}
	r := c.newRegionRead(p, sink)
	r.unread[r.queueARN("orders")] = true // as when ListQueueTags failed for it
	r.sns(context.Background())
	topic, id, _ := subscriptionOf(subs["orders"])
	want := model.JoinScope(baseAccount, mainRegion, "sns", topic, id)
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != want {
		t.Fatalf("errors = %+v, want one at %s", sink.Errors, want)
	}
}

// Two accounts through their roles: the one whose role is refused fails
// its unit, naming the role; the other answers.
func TestARefusedRoleFailsItsAccountOnly(t *testing.T) {
	e := newEstate(t)
	e.addQueue(fakeQueue{account: otherAccount, name: "bf-7001-retries", visible: 1})
	e.addQueue(fakeQueue{account: baseAccount, name: "bf-7001-scratch"})
	e.refuse(otherAccount)
	c := newOn(t, e.URL, func(c *Collector) {
		c.Accounts = []accountSetting{{ID: baseAccount}, {ID: otherAccount, Role: "bfaudit-read"}}
		c.SNS = false
	})
	sink, err := collectortest.Collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != otherAccount+"/"+mainRegion ||
		!strings.Contains(sink.Errors[0].Error, "arn:aws:iam::222222222222:role/bfaudit-read") ||
		!strings.Contains(sink.Errors[0].Error, "AccessDenied") {
		t.Fatalf("errors = %+v, want the other account's unit failed naming its role", sink.Errors)
	}
	if _, ok := byURI(sink)[q+"bf-7001-scratch"]; !ok {
		t.Error("the base account was not read")
	}
}

// An SNS listing that fails is an error at the unit's sns scope; the
// queues stand.
func TestSNSThatFailsLeavesTheQueues(t *testing.T) {
	e := newEstate(t)
	standard(t, e)
	e.breakUnit(baseAccount+"/"+mainRegion+"/sns", httpStatus(500))
	sink, err := collectortest.Collect(t, newOn(t, e.URL))
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "111111111111/eu-west-1/sns" {
		t.Fatalf("errors = %+v", sink.Errors)
	}
	if _, ok := byURI(sink)[q+"bf-7001-retries"]; !ok {
		t.Error("the queues were not read")
	}
}

func TestSampleAndBadSettings(t *testing.T) {
	in := collectortest.DecodeSample(t, "sample.yaml")
	if c := in.Collector.(*Collector); !c.SNS || len(c.Regions) != 2 || len(c.Accounts) != 1 {
		t.Errorf("sample decoded to %+v", c)
	}
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "sqs", "regions": []any{"eu-west-1"}})
	for _, tt := range []struct {
		entry map[string]any
		want  string
	}{
		{map[string]any{"type": "sqs"}, "regions: missing"},
		{map[string]any{"type": "sqs", "regions": []any{"eu-west-1"}, "accounts": []any{map[string]any{"id": "12"}}}, "accounts[0].id"},
		{map[string]any{"type": "sqs", "regions": []any{"eu-west-1"}, "endpoint": "nowhere"}, "endpoint"},
	} {
		if _, err := collectors.Decode(tt.entry, collectors.Env{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Decode(%v) = %v, want an error naming %q", tt.entry, err, tt.want)
		}
	}
}

func TestShownEndpointKeepsNoSecretNorPerson(t *testing.T) {
	for _, tt := range []struct{ protocol, endpoint, want string }{
		{"https", "https://user:pw@hooks.example.com/in?token=s3cret", "https://hooks.example.com/in"},
		{"email", "alice@example.com", ""},
		{"sms", "+15555550100", ""},
		{"sqs", "arn:aws:sqs:eu-west-1:111111111111:q", "arn:aws:sqs:eu-west-1:111111111111:q"},
	} {
		if got := shownEndpoint(tt.protocol, tt.endpoint); got != tt.want {
			t.Errorf("shownEndpoint(%s, %s) = %q, want %q", tt.protocol, tt.endpoint, got, tt.want)
		}
	}
}
