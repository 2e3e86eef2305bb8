package sqs

import (
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built and read here only:
//
//	sqs://<source>/<account>/<region>/<queue>                  a queue
//	sns://<source>/<account>/<region>/<topic>                  a topic
//	sns://<source>/<account>/<region>/<topic>/<subscription>   a subscription: its topic and the
//	                                                           last part of its ARN
//
// Every part is path-escaped. The account and region are those of the
// unit that listed the object (a subscription to another account's topic
// keeps its full ARN in AttrSubscriptionARN).

// Schemes of the two services' URIs.
const (
	schemeSQS = "sqs"
	schemeSNS = "sns"
)

// QueueURI is the URI of a queue.
func QueueURI(source, account, region, queue string) string {
	return model.JoinURI(schemeSQS, source, account, region, queue)
}

// TopicURI is the URI of a topic.
func TopicURI(source, account, region, topic string) string {
	return model.JoinURI(schemeSNS, source, account, region, topic)
}

// SubscriptionURI is the URI of a subscription to topic; id is the last
// part of its ARN.
func SubscriptionURI(source, account, region, topic, id string) string {
	return model.JoinURI(schemeSNS, source, account, region, topic, id)
}

// Object is a queue, topic or subscription, read from its URI.
type Object struct {
	Account, Region string
	// Queue is set for a queue; Topic for a topic and a subscription,
	// Subscription (the last part of its ARN) for a subscription.
	Queue, Topic, Subscription string
}

// Parse reads a queue, topic or subscription from an artifact's URI, and
// refuses any URI this file would not write.
func Parse(a *model.Artifact) (Object, bool) {
	scheme, _, _ := strings.Cut(a.URI, "://")
	segs, ok := model.URISegments(a.URI, scheme)
	if !ok || len(segs) < 3 || segs[0] == "" || segs[1] == "" || segs[2] == "" {
		return Object{}, false
	}
	o := Object{Account: segs[0], Region: segs[1]}
	switch {
	case scheme == schemeSQS && len(segs) == 3:
		o.Queue = segs[2]
	case scheme == schemeSNS && len(segs) == 3:
		o.Topic = segs[2]
	case scheme == schemeSNS && len(segs) == 4 && segs[3] != "":
		o.Topic, o.Subscription = segs[2], segs[3]
	default:
		return Object{}, false
	}
	return o, true
}

// TopicARN is the ARN of the object's topic.
func (o Object) TopicARN() string {
	return "arn:" + awsconf.Partition(o.Region) + ":sns:" + o.Region + ":" + o.Account + ":" + o.Topic
}

// SubscriptionARN is the ARN of the object's subscription, when its topic
// is in the account and region of its URI.
func (o Object) SubscriptionARN() string { return o.TopicARN() + ":" + o.Subscription }

// QueueURL is the address AWS gives the object's queue
// (https://sqs.<region>.amazonaws.com/<account>/<queue>).
func (o Object) QueueURL() string {
	host := "sqs." + o.Region + ".amazonaws.com"
	if awsconf.Partition(o.Region) == "aws-cn" {
		host += ".cn"
	}
	return "https://" + host + "/" + o.Account + "/" + url.PathEscape(o.Queue)
}

// arnParts splits an ARN into its six colon-separated fields
// (arn:partition:service:region:account:resource); the resource keeps its
// colons (an SNS subscription's is topic:id).
func arnParts(arn string) ([]string, bool) {
	p := strings.SplitN(arn, ":", 6)
	if len(p) != 6 || p[0] != "arn" || p[5] == "" {
		return nil, false
	}
	return p, true
}

// subscriptionOf reads an SNS subscription ARN
// (arn:aws:sns:<region>:<account>:<topic>:<id>) into its topic and id.
func subscriptionOf(arn string) (topic, id string, ok bool) {
	p, ok := arnParts(arn)
	if !ok || p[2] != "sns" {
		return "", "", false
	}
	topic, id, ok = strings.Cut(p[5], ":")
	if !ok || topic == "" || id == "" || strings.Contains(id, ":") {
		return "", "", false
	}
	return topic, id, true
}

// resourceName is the name an ARN ends with: a queue's, a topic's, a
// function's (arn:aws:lambda:...:function:name), a delivery stream's
// (...:deliverystream/name).
func resourceName(arn string) string {
	p, ok := arnParts(arn)
	if !ok {
		return ""
	}
	r := p[5]
	if i := strings.LastIndexAny(r, ":/"); i >= 0 {
		r = r[i+1:]
	}
	return r
}

// queueNameOf is the queue name a queue URL ends with.
func queueNameOf(queueURL string) string {
	u, err := url.Parse(queueURL)
	if err != nil {
		return ""
	}
	return u.Path[strings.LastIndexByte(u.Path, '/')+1:]
}
