package sqs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssns "github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// stateCreated is when the queue was created: a queue deleted and made
// again under the same name since the audit is another queue.
const stateCreated = "created"

// actor applies the commands through the SDK, in the account and region
// of each object, with the configuration and accounts the source reads
// with (the role assumed in each).
type actor struct{ c *Collector }

func newActor(c *Collector) (remedy.Actor, error) {
	if c.Regions == nil {
		return nil, errors.New("sqs: the source was not initialised (Init was not called)")
	}
	return &actor{c: c}, nil
}

// config is the SDK configuration of the object's account and region.
func (f *actor) config(ctx context.Context, a *model.Artifact) (Object, aws.Config, error) {
	o, ok := Parse(a)
	if !ok {
		return o, aws.Config{}, fmt.Errorf("sqs: %s is not an artifact bfaudit can act on", a.URI)
	}
	p, err := f.c.PlaceOf(ctx, o.Account, o.Region)
	if err != nil {
		return o, aws.Config{}, fmt.Errorf("sqs source %s: %w", f.c.Source(), err)
	}
	return o, p.Config(), nil
}

func (f *actor) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	o, cfg, err := f.config(ctx, a)
	if err != nil {
		return remedy.Observed{}, err
	}
	switch {
	case o.Queue != "":
		q, err := f.readQueue(ctx, awssqs.NewFromConfig(cfg), o)
		if err != nil || q.url == "" {
			return remedy.Observed{}, err
		}
		return remedy.Observed{Found: true, State: q.state()}, nil
	case o.Subscription != "":
		arn := subscriptionARN(a, o)
		out, err := awsconf.Call(ctx, f.c.Timeout, func(ctx context.Context) (*awssns.GetSubscriptionAttributesOutput, error) {
			return awssns.NewFromConfig(cfg).GetSubscriptionAttributes(ctx, &awssns.GetSubscriptionAttributesInput{SubscriptionArn: aws.String(arn)})
		})
		if isSNSNotFound(err) {
			return remedy.Observed{}, nil
		}
		if err != nil {
			return remedy.Observed{}, fmt.Errorf("sns: subscription %s: %w", arn, err)
		}
		return remedy.Observed{Found: true, State: map[string]string{AttrTopic: out.Attributes["TopicArn"]}}, nil
	}
	_, err = awsconf.Call(ctx, f.c.Timeout, func(ctx context.Context) (*awssns.GetTopicAttributesOutput, error) {
		return awssns.NewFromConfig(cfg).GetTopicAttributes(ctx, &awssns.GetTopicAttributesInput{TopicArn: aws.String(o.TopicARN())})
	})
	if isSNSNotFound(err) {
		return remedy.Observed{}, nil
	}
	if err != nil {
		return remedy.Observed{}, fmt.Errorf("sns: topic %s: %w", o.TopicARN(), err)
	}
	return remedy.Observed{Found: true, State: map[string]string{}}, nil
}

// Expected: a queue is the one the audit saw (its creation time), and a
// purge drops only the messages the audit counted (more or fewer: someone
// still sends to it or reads from it); a subscription is still on its
// topic; a topic only has to be there.
func (f *actor) Expected(a *model.Artifact, act remedy.Action) map[string]string {
	out := map[string]string{}
	o, _ := Parse(a)
	switch {
	case o.Queue != "":
		if !a.CreatedAt.IsZero() {
			out[stateCreated] = a.CreatedAt.Time().UTC().Format(time.RFC3339)
		}
		if act.Name == PurgeQueue {
			out[model.AttrMessages] = a.Attr(model.AttrMessages)
		}
	case o.Subscription != "":
		out[AttrTopic] = a.Attr(AttrTopic)
	}
	return out
}

// Act purges a queue, deletes a queue that reads empty right before (its
// counts read again: a queue that holds messages is never deleted, so they
// are lost only through a purge fix.allow names), unsubscribes a
// subscription, deletes a topic. An object gone in between is done.
func (f *actor) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	o, cfg, err := f.config(ctx, a)
	if err != nil {
		return err
	}
	switch {
	case o.Queue != "" && (act.Name == PurgeQueue || act.Name == remedy.DeleteQueue):
		client := awssqs.NewFromConfig(cfg)
		q, err := f.readQueue(ctx, client, o)
		if err != nil || q.url == "" {
			return err
		}
		if act.Name == PurgeQueue {
			_, err = awsconf.Call(ctx, f.c.Timeout, func(ctx context.Context) (*awssqs.PurgeQueueOutput, error) {
				return client.PurgeQueue(ctx, &awssqs.PurgeQueueInput{QueueUrl: aws.String(q.url)})
			})
			return queueDone("purge queue "+o.Queue, err)
		}
		if n := q.counts.total(); n > 0 {
			return fmt.Errorf("sqs: queue %s holds %d messages (%d visible, %d in flight, %d delayed): not deleted; drain it, or purge it (%s in fix.allow) and run fix again once it reads empty",
				o.Queue, n, q.counts.visible, q.counts.inFlight, q.counts.delayed, PurgeQueue)
		}
		_, err = awsconf.Call(ctx, f.c.Timeout, func(ctx context.Context) (*awssqs.DeleteQueueOutput, error) {
			return client.DeleteQueue(ctx, &awssqs.DeleteQueueInput{QueueUrl: aws.String(q.url)})
		})
		return queueDone("delete queue "+o.Queue, err)
	case o.Subscription != "" && act.Name == remedy.DeleteSubscription:
		arn := subscriptionARN(a, o)
		_, err = awsconf.Call(ctx, f.c.Timeout, func(ctx context.Context) (*awssns.UnsubscribeOutput, error) {
			return awssns.NewFromConfig(cfg).Unsubscribe(ctx, &awssns.UnsubscribeInput{SubscriptionArn: aws.String(arn)})
		})
		return topicDone("unsubscribe "+arn, err)
	case o.Queue == "" && o.Subscription == "" && act.Name == remedy.DeleteTopic:
		_, err = awsconf.Call(ctx, f.c.Timeout, func(ctx context.Context) (*awssns.DeleteTopicOutput, error) {
			return awssns.NewFromConfig(cfg).DeleteTopic(ctx, &awssns.DeleteTopicInput{TopicArn: aws.String(o.TopicARN())})
		})
		return topicDone("delete topic "+o.TopicARN(), err)
	}
	return fmt.Errorf("sqs: no %s for %s", act.Name, a.URI)
}

// liveQueue is a queue as read just before acting; url is "" when it is gone.
type liveQueue struct {
	url     string
	created time.Time
	counts  queueCounts
}

func (q liveQueue) state() map[string]string {
	st := map[string]string{model.AttrMessages: strconv.FormatInt(q.counts.total(), 10)}
	if !q.created.IsZero() {
		st[stateCreated] = q.created.Format(time.RFC3339)
	}
	return st
}

// readQueue finds the queue by its name in its account (GetQueueUrl) and
// reads its counts and creation time.
func (f *actor) readQueue(ctx context.Context, client *awssqs.Client, o Object) (liveQueue, error) {
	u, err := awsconf.Call(ctx, f.c.Timeout, func(ctx context.Context) (*awssqs.GetQueueUrlOutput, error) {
		return client.GetQueueUrl(ctx, &awssqs.GetQueueUrlInput{QueueName: aws.String(o.Queue), QueueOwnerAWSAccountId: aws.String(o.Account)})
	})
	if isQueueGone(err) {
		return liveQueue{}, nil
	}
	if err != nil {
		return liveQueue{}, fmt.Errorf("sqs: queue %s: %w", o.Queue, err)
	}
	url := aws.ToString(u.QueueUrl)
	out, err := awsconf.Call(ctx, f.c.Timeout, func(ctx context.Context) (*awssqs.GetQueueAttributesOutput, error) {
		return client.GetQueueAttributes(ctx, &awssqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: queueAttributes})
	})
	if isQueueGone(err) {
		return liveQueue{}, nil
	}
	var counts queueCounts
	if err == nil {
		counts, err = countsOf(out.Attributes)
	}
	if err != nil {
		return liveQueue{}, fmt.Errorf("sqs: attributes of queue %s: %w", o.Queue, err)
	}
	return liveQueue{url: url, counts: counts, created: epoch(out.Attributes[string(sqstypes.QueueAttributeNameCreatedTimestamp)])}, nil
}

// subscriptionARN is the ARN the audit recorded, else the one the URI
// gives (a finding read back from a report).
func subscriptionARN(a *model.Artifact, o Object) string {
	if arn := a.Attr(AttrSubscriptionARN); arn != "" {
		return arn
	}
	return o.SubscriptionARN()
}

func isQueueGone(err error) bool {
	var gone *sqstypes.QueueDoesNotExist
	return errors.As(err, &gone)
}

func isSNSNotFound(err error) bool {
	var nf *snstypes.NotFoundException
	return errors.As(err, &nf)
}

// queueDone and topicDone: an object gone in between is done either way.
func queueDone(what string, err error) error {
	if err == nil || isQueueGone(err) {
		return nil
	}
	return fmt.Errorf("sqs: %s: %w", what, err)
}

func topicDone(what string, err error) error {
	if err == nil || isSNSNotFound(err) {
		return nil
	}
	return fmt.Errorf("sns: %s: %w", what, err)
}
