package sqs

import (
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// The commands, run under sh with aws recorded: every hostile name
// reaches aws as one argument, intact. A queue that held messages is
// purged before it is deleted; an empty one is only deleted.
func TestCommandsUnderSh(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		queueURL := "https://sqs.eu-west-1.amazonaws.com/111111111111/" + name
		subARN := "arn:aws:sns:us-east-1:222222222222:" + name + ":id-1"
		cases := []struct {
			a    model.Artifact
			want [][]string
		}{
			{model.Artifact{URI: QueueURI("src", baseAccount, mainRegion, name), Attributes: model.Attrs(model.AttrMessages, "4", AttrQueueURL, queueURL)},
				[][]string{
					{"sqs", "purge-queue", "--region=eu-west-1", "--queue-url=" + queueURL},
					{"sqs", "delete-queue", "--region=eu-west-1", "--queue-url=" + queueURL}}},
			{model.Artifact{URI: QueueURI("src", baseAccount, mainRegion, name), Attributes: model.Attrs(model.AttrMessages, "0", AttrQueueURL, queueURL)},
				[][]string{{"sqs", "delete-queue", "--region=eu-west-1", "--queue-url=" + queueURL}}},
			{model.Artifact{URI: SubscriptionURI("src", baseAccount, mainRegion, name, "id-1"), Attributes: model.Attrs(AttrSubscriptionARN, subARN)},
				[][]string{{"sns", "unsubscribe", "--region=us-east-1", "--subscription-arn=" + subARN}}},
			{model.Artifact{URI: TopicURI("src", baseAccount, mainRegion, name)},
				[][]string{{"sns", "delete-topic", "--region=eu-west-1", "--topic-arn=arn:aws:sns:eu-west-1:111111111111:" + name}}},
		}
		for _, tc := range cases {
			var r remedy.Remedy
			removal(&r, &tc.a)
			var script []string
			for _, act := range r.Actions {
				script = append(script, act.Shell)
			}
			calls := remedytest.RunShell(t, strings.Join(script, "\n"))
			if len(calls) != len(tc.want) {
				t.Fatalf("%s: %d calls, want %d: %+v", tc.a.URI, len(calls), len(tc.want), calls)
			}
			for i, c := range calls {
				if c.Prog != "aws" || !slices.Equal(c.Args, tc.want[i]) {
					t.Errorf("%s: call %d = %s %q, want aws %q", tc.a.URI, i, c.Prog, c.Args, tc.want[i])
				}
			}
			last := r.Actions[len(r.Actions)-1]
			if !last.Resolves || last.Step != model.StepRetired || remedy.Reversible(last.Name) {
				t.Errorf("%s: the last action %+v does not resolve the finding at the retired step", tc.a.URI, last)
			}
		}
	}
	if remedy.Reversible(PurgeQueue) {
		t.Error("purge_queue is declared reversible: it would run without fix.allow")
	}
}

// From a finding alone (a report holds no artifacts), the URI gives the
// kind and the commands: the standard queue URL, the subscription's ARN.
func TestFromTheURIAlone(t *testing.T) {
	for _, tc := range []struct {
		uri   string
		kind  model.Kind
		shell string
	}{
		{"sqs://aws-queues/111111111111/eu-west-1/bf-7001-retries", model.KindQueue,
			"aws sqs delete-queue --region=eu-west-1 --queue-url=https://sqs.eu-west-1.amazonaws.com/111111111111/bf-7001-retries"},
		{"sns://aws-queues/111111111111/eu-west-1/orders-events/0c8e", model.KindSubscription,
			"aws sns unsubscribe --region=eu-west-1 --subscription-arn=arn:aws:sns:eu-west-1:111111111111:orders-events:0c8e"},
		{"sns://aws-queues/111111111111/eu-west-1/bf-7001-replay", model.KindQueue,
			"aws sns delete-topic --region=eu-west-1 --topic-arn=arn:aws:sns:eu-west-1:111111111111:bf-7001-replay"},
	} {
		f := model.Finding{RuleID: "BF006", BackfillID: "BF-7001", ArtifactURI: tc.uri}
		a := remedy.InferArtifact(f)
		if a == nil || a.Kind != tc.kind {
			t.Fatalf("%s: inferred %+v", tc.uri, a)
		}
		r, ok := remedy.BuildWith(remedy.Remove(model.StepRetired), f, remedy.Facts{Artifact: a})
		if !ok || len(r.Actions) != 1 || r.Actions[0].Shell != tc.shell {
			t.Errorf("%s: remedy %+v, want %s", tc.uri, r.Actions, tc.shell)
		}
	}
}
