package sqs

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// Each shape the collector writes, built from hostile names (a source, a
// queue, a topic or an id as a hostile server may answer them), reads back
// to the same parts; anything else is refused.
func TestURIRoundTrip(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		for _, tc := range []struct {
			uri  string
			want Object
		}{
			{QueueURI(name, baseAccount, mainRegion, name), Object{Account: baseAccount, Region: mainRegion, Queue: name}},
			{TopicURI(name, baseAccount, mainRegion, name), Object{Account: baseAccount, Region: mainRegion, Topic: name}},
			{SubscriptionURI(name, baseAccount, mainRegion, name, name+"-id"), Object{Account: baseAccount, Region: mainRegion, Topic: name, Subscription: name + "-id"}},
		} {
			if got, ok := Parse(&model.Artifact{URI: tc.uri}); !ok || got != tc.want {
				t.Errorf("%q read back as %+v (%v), want %+v", tc.uri, got, ok, tc.want)
			}
		}
	}
	for _, uri := range []string{
		"sqs://s/111111111111/eu-west-1", "sqs://s/111111111111/eu-west-1/q/extra", "sqs://s//eu-west-1/q",
		"sns://s/111111111111/eu-west-1/t/", "sns://s/111111111111/eu-west-1/t/id/more", "pubsub://p/topics/t", "sqs://s/1/r/%zz",
	} {
		if o, ok := Parse(&model.Artifact{URI: uri}); ok {
			t.Errorf("%q read as %+v", uri, o)
		}
	}
}

func TestARNs(t *testing.T) {
	topic, id, ok := subscriptionOf("arn:aws:sns:eu-west-1:111111111111:bf-7001-replay:0c8e-11")
	if !ok || topic != "bf-7001-replay" || id != "0c8e-11" {
		t.Errorf("subscriptionOf = %q %q %v", topic, id, ok)
	}
	for _, bad := range []string{"PendingConfirmation", "arn:aws:sqs:eu-west-1:1:q", "arn:aws:sns:eu-west-1:1:t", "arn:aws:sns:eu-west-1:1:t:a:b"} {
		if _, _, ok := subscriptionOf(bad); ok {
			t.Errorf("subscriptionOf(%q) accepted", bad)
		}
	}
	for arn, want := range map[string]string{
		"arn:aws:sqs:eu-west-1:1:bf-7001-dlq":                      "bf-7001-dlq",
		"arn:aws:lambda:eu-west-1:1:function:replay-sink":          "replay-sink",
		"arn:aws:firehose:eu-west-1:1:deliverystream/bf_7001_sink": "bf_7001_sink",
		"https://example.com/x":                                    "",
	} {
		if got := resourceName(arn); got != want {
			t.Errorf("resourceName(%q) = %q, want %q", arn, got, want)
		}
	}
	o := Object{Account: baseAccount, Region: "cn-north-1", Queue: "q", Topic: "t", Subscription: "id"}
	if o.QueueURL() != "https://sqs.cn-north-1.amazonaws.com.cn/111111111111/q" || o.SubscriptionARN() != "arn:aws-cn:sns:cn-north-1:111111111111:t:id" {
		t.Errorf("addresses in China: %s %s", o.QueueURL(), o.SubscriptionARN())
	}
}
