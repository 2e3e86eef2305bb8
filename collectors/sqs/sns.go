package sqs

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssns "github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"

	"github.com/bfaudit/bfaudit/collectors/awssource"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a subscription.
const (
	AttrTopic           = "topic"            // the ARN of the subscription's topic
	AttrSubscriptionARN = "subscription_arn" // the subscription's ARN
	AttrProtocol        = "protocol"         // sqs, lambda, firehose, http, https, email...
	// AttrEndpoint is where SNS delivers: an ARN (a queue, a function), or
	// an http(s) address without its query; an e-mail address or phone
	// number is not recorded.
	AttrEndpoint = "endpoint"
)

func (r *regionRead) snsScope() string { return model.JoinScope(r.account, r.region, "sns") }
func (r *regionRead) topicScope(topic string) string {
	return model.JoinScope(r.account, r.region, "sns", topic)
}
func (r *regionRead) subscriptionScope(topic, id string) string {
	return model.JoinScope(r.account, r.region, "sns", topic, id)
}

// sns reads the unit's topics (with their tags) and subscriptions, and
// emits those tied to a backfill. It fails nothing but its own scope: a
// failed listing is an error at the unit's "sns" scope (subscriptions are
// tied through their topics, so without the topics none is answered), a
// topic whose tags do not read an error at its scope, which holds its
// subscriptions.
func (r *regionRead) sns(ctx context.Context) {
	client := awssns.NewFromConfig(r.cfg)
	topics, err := listTopics(ctx, client, r.c.Timeout)
	if err != nil {
		if ctx.Err() == nil {
			r.sink.AddError(r.snsScope(), fmt.Errorf("sns: %s: list topics: %w", r.where, err))
		}
		return
	}
	r.sink.AddRead(r.snsScope(), "topics", len(topics), 0)
	subs, subsErr := listSubscriptions(ctx, client, r.c.Timeout)
	if subsErr != nil {
		if ctx.Err() != nil {
			return
		}
		r.sink.AddError(r.snsScope(), fmt.Errorf("sns: %s: list subscriptions: %w", r.where, subsErr))
	} else {
		r.sink.AddRead(r.snsScope(), "subscriptions", len(subs), 0)
	}
	perTopic := map[string]int{}
	for _, s := range subs {
		perTopic[aws.ToString(s.TopicArn)]++
	}
	topicTies := map[string]tie{}
	for i, arn := range topics {
		p, ok := arnParts(arn)
		if !ok || p[2] != "sns" {
			r.sink.AddError(r.snsScope(), fmt.Errorf("sns: %s: list topics: entry %d is not a topic ARN", r.where, i))
			continue
		}
		name := p[5]
		out, err := awsconf.Call(ctx, r.c.Timeout, func(ctx context.Context) (*awssns.ListTagsForResourceOutput, error) {
			return client.ListTagsForResource(ctx, &awssns.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
		})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.sink.AddError(r.topicScope(name), fmt.Errorf("sns: %s: tags of topic %s: %w", r.where, name, err))
			continue
		}
		tags := tagMap(out.Tags)
		id, how, ok := r.c.Env.Selector.Match(TopicURI(r.c.Source(), r.account, r.region, name), name, tags)
		if !ok {
			continue
		}
		topicTies[arn] = tie{id, how}
		a := model.Artifact{
			Kind: model.KindQueue, Scope: r.topicScope(name), URI: TopicURI(r.c.Source(), r.account, r.region, name),
			Name: name, BackfillID: id, Correlation: how, Owner: awssource.OwnerTag(tags), Labels: model.TagsOf(cloneTags(tags)), State: model.StateActive,
		}
		a.SetKeep(tags[model.KeepUntilKey], tags[model.KeepReasonKey], "")
		if subsErr == nil {
			// A topic's consumers are its subscriptions: each one is
			// delivered every message published to it.
			a.SetAttr(model.AttrConsumers, strconv.Itoa(perTopic[arn]))
		}
		r.sink.AddArtifact(a)
	}
	for i, s := range subs {
		arn := aws.ToString(s.SubscriptionArn)
		topic, id, ok := subscriptionOf(arn)
		if !ok {
			// "PendingConfirmation": not a subscription yet, and SNS drops
			// it unconfirmed after three days; nothing to act on.
			if arn != "PendingConfirmation" {
				r.sink.AddError(r.snsScope(), fmt.Errorf("sns: %s: list subscriptions: entry %d is not a subscription ARN", r.where, i))
			}
			continue
		}
		if a, ok := r.subscription(s, topic, id, topicTies); ok {
			r.sink.AddArtifact(a)
		}
	}
}

// subscription emits a subscription tied by a plan's declared asset, by
// its topic's tie, by the queue it feeds, or by the name of its topic or
// endpoint (a topic or queue of another account named for a backfill). A
// subscription feeding a queue whose tags did not read cannot be said
// untied: an error at its scope.
func (r *regionRead) subscription(s snstypes.Subscription, topic, id string, topicTies map[string]tie) (model.Artifact, bool) {
	uri := SubscriptionURI(r.c.Source(), r.account, r.region, topic, id)
	topicARN, protocol, endpoint := aws.ToString(s.TopicArn), aws.ToString(s.Protocol), aws.ToString(s.Endpoint)
	t, ok := r.subscriptionTie(uri, topicARN, topic, protocol, endpoint, topicTies)
	if !ok {
		if protocol == "sqs" && r.unread[endpoint] {
			r.sink.AddError(r.subscriptionScope(topic, id), fmt.Errorf(
				"sns: %s: subscription %s of topic %s feeds queue %s, whose tags did not read: not known whether it is a backfill's",
				r.where, id, topic, resourceName(endpoint)))
		}
		return model.Artifact{}, false
	}
	a := model.Artifact{
		Kind: model.KindSubscription, Scope: r.subscriptionScope(topic, id), URI: uri, Name: topic + ":" + id,
		BackfillID: t.id, Correlation: t.how, State: model.StateActive,
	}
	a.SetAttr(AttrTopic, topicARN)
	a.SetAttr(AttrSubscriptionARN, aws.ToString(s.SubscriptionArn))
	a.SetAttr(AttrProtocol, protocol)
	if e := shownEndpoint(protocol, endpoint); e != "" {
		a.SetAttr(AttrEndpoint, e)
	}
	return a, true
}

func (r *regionRead) subscriptionTie(uri, topicARN, topic, protocol, endpoint string, topicTies map[string]tie) (tie, bool) {
	sel := r.c.Env.Selector
	if id, ok := sel.Assets[uri]; ok {
		return tie{id, "asset"}, true
	}
	if t, ok := topicTies[topicARN]; ok {
		return t, true
	}
	if t, ok := r.queueTies[endpoint]; ok && protocol == "sqs" {
		return t, true
	}
	if id, ok := sel.FromName(topic); ok {
		return tie{id, "name"}, true
	}
	if _, isARN := arnParts(endpoint); isARN {
		if id, ok := sel.FromName(resourceName(endpoint)); ok {
			return tie{id, "name"}, true
		}
	}
	return tie{}, false
}

// shownEndpoint is the endpoint as a report may show it: an ARN as it is,
// an http(s) address without its query (tokens are passed there under any
// name) and masked by redact, nothing for a person's address or number.
func shownEndpoint(protocol, endpoint string) string {
	switch protocol {
	case "sqs", "lambda", "firehose", "application":
		return endpoint
	case "http", "https":
		u, err := url.Parse(endpoint)
		if err != nil {
			return ""
		}
		u.RawQuery, u.ForceQuery = "", false
		return redact.URLOf(u)
	}
	return ""
}

func tagMap(tags []snstypes.Tag) map[string]string {
	return awssource.Tags(tags, func(t snstypes.Tag) (*string, *string) { return t.Key, t.Value })
}

func listTopics(ctx context.Context, client *awssns.Client, timeout time.Duration) ([]string, error) {
	pager := awssns.NewListTopicsPaginator(client, &awssns.ListTopicsInput{})
	topics, err := awsconf.List(ctx, timeout, pager.HasMorePages,
		func(ctx context.Context) (*awssns.ListTopicsOutput, error) { return pager.NextPage(ctx) },
		awsconf.Listing[*awssns.ListTopicsOutput, snstypes.Topic]{
			Items: func(p *awssns.ListTopicsOutput) []snstypes.Topic { return p.Topics },
			Key:   func(t snstypes.Topic) string { return aws.ToString(t.TopicArn) }})
	out := make([]string, len(topics))
	for i, t := range topics {
		out[i] = aws.ToString(t.TopicArn)
	}
	return out, err
}

func listSubscriptions(ctx context.Context, client *awssns.Client, timeout time.Duration) ([]snstypes.Subscription, error) {
	pager := awssns.NewListSubscriptionsPaginator(client, &awssns.ListSubscriptionsInput{})
	return awsconf.List(ctx, timeout, pager.HasMorePages,
		func(ctx context.Context) (*awssns.ListSubscriptionsOutput, error) { return pager.NextPage(ctx) },
		awsconf.Listing[*awssns.ListSubscriptionsOutput, snstypes.Subscription]{
			Items: func(p *awssns.ListSubscriptionsOutput) []snstypes.Subscription { return p.Subscriptions },
			// Every subscription still pending is "PendingConfirmation": each is kept.
			Key: func(s snstypes.Subscription) string {
				if arn := aws.ToString(s.SubscriptionArn); arn != "PendingConfirmation" {
					return arn
				}
				return ""
			}})
}
