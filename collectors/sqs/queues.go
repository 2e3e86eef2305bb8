package sqs

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/awssource"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a queue, beside model.AttrMessages (every message the
// queue holds: visible, in flight and delayed).
const (
	AttrMessagesVisible  = "messages_visible"   // ApproximateNumberOfMessages: waiting to be received
	AttrMessagesInFlight = "messages_in_flight" // ApproximateNumberOfMessagesNotVisible: received, not yet deleted
	AttrMessagesDelayed  = "messages_delayed"   // ApproximateNumberOfMessagesDelayed: not yet visible
	AttrDeadLetterTarget = "dead_letter_target" // the ARN of the queue its RedrivePolicy moves failed messages to
	AttrMaxReceiveCount  = "max_receive_count"  // receives before a message moves to the dead-letter queue
	// AttrDeadLetterSources lists (comma-separated) the queues whose
	// failed messages this queue receives, when it is tied through them.
	AttrDeadLetterSources = "dead_letter_sources"
	AttrMessageRetention  = "message_retention" // how long SQS keeps a message before it drops it
	AttrQueueURL          = "queue_url"         // the queue's URL as SQS gave it
)

// correlationRedrive ties a dead-letter queue that carries no backfill id
// of its own through the backfill queues that move their failed messages
// to it (all of them tied to one backfill).
const correlationRedrive = "redrive"

// queueAttributes are the attributes read of each tied queue.
var queueAttributes = []sqstypes.QueueAttributeName{
	sqstypes.QueueAttributeNameApproximateNumberOfMessages,
	sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
	sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed,
	sqstypes.QueueAttributeNameRedrivePolicy,
	sqstypes.QueueAttributeNameCreatedTimestamp,
	sqstypes.QueueAttributeNameLastModifiedTimestamp,
	sqstypes.QueueAttributeNameMessageRetentionPeriod,
}

// maxListResults is the largest page ListQueues and
// ListDeadLetterSourceQueues answer.
const maxListResults = 1000

type tie struct{ id, how string }

// regionRead is the read of one unit: one account in one region.
type regionRead struct {
	c               *Collector
	account, region string
	where           string // for errors: the account, region and role
	sink            collectors.Sink
	sqs             *awssqs.Client
	cfg             aws.Config

	// What the queues tell the SNS read, by queue ARN: the tied queues,
	// and those whose tags did not read (a subscription feeding one of
	// them cannot be said untied).
	queueTies map[string]tie
	unread    map[string]bool
}

func (c *Collector) newRegionRead(p awsconf.Place, sink collectors.Sink) *regionRead {
	cfg := p.Config()
	return &regionRead{
		c: c, account: p.Account, region: p.Region, where: p.String(), sink: sink,
		sqs: awssqs.NewFromConfig(cfg), cfg: cfg,
		queueTies: map[string]tie{}, unread: map[string]bool{},
	}
}

func (r *regionRead) unit() string { return model.JoinScope(r.account, r.region) }
func (r *regionRead) queueScope(q string) string {
	return model.JoinScope(r.account, r.region, "sqs", q)
}

// queueARN is the ARN of a queue of this unit.
func (r *regionRead) queueARN(name string) string {
	return "arn:" + awsconf.Partition(r.region) + ":sqs:" + r.region + ":" + r.account + ":" + name
}

// queue is one listed queue, with its tags and, once tied, its tie.
type queue struct {
	name, url string
	tags      map[string]string
	tie       tie
}

// queues reads every queue's tags, ties the queues, then reads the tied
// ones' attributes. Only a failed listing fails the unit: a queue whose
// tags or attributes do not read is an error at its own scope.
func (r *regionRead) queues(ctx context.Context) error {
	urls, err := r.listQueues(ctx)
	if err != nil {
		return fmt.Errorf("sqs: %s: list queues: %w", r.where, err)
	}
	listed := map[string]*queue{}
	var tied []*queue
	for i, u := range urls {
		name := queueNameOf(u)
		if name == "" {
			r.sink.AddError(model.JoinScope(r.account, r.region, "sqs"), fmt.Errorf("sqs: %s: list queues: entry %d is not a queue URL", r.where, i))
			continue
		}
		q := &queue{name: name, url: u}
		listed[name] = q
		tags, err := awsconf.Call(ctx, r.c.Timeout, func(ctx context.Context) (*awssqs.ListQueueTagsOutput, error) {
			return r.sqs.ListQueueTags(ctx, &awssqs.ListQueueTagsInput{QueueUrl: aws.String(u)})
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.unread[r.queueARN(name)] = true
			r.sink.AddError(r.queueScope(name), fmt.Errorf("sqs: %s: tags of queue %s: %w", r.where, name, err))
			continue
		}
		q.tags = tags.Tags
		if id, how, ok := r.c.Env.Selector.Match(QueueURI(r.c.Source(), r.account, r.region, name), name, q.tags); ok {
			q.tie = tie{id, how}
			tied = append(tied, q)
			r.queueTies[r.queueARN(name)] = q.tie
		}
	}
	// A tied queue is read at its own scope (its attributes), the others
	// at the unit's: the counts add up to the queues listed.
	read := func(q *queue) (model.Artifact, bool) {
		a, ok := r.queueArtifact(ctx, q)
		partial := 0
		if !ok {
			partial = 1
		}
		r.sink.AddRead(r.queueScope(q.name), "queues", 1, partial)
		return a, ok
	}
	var emitted []model.Artifact
	for _, q := range tied {
		if a, ok := read(q); ok {
			emitted = append(emitted, a)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	dlqs := r.deadLetterQueues(ctx, emitted, listed)
	for _, dlq := range dlqs {
		if a, ok := read(dlq.queue); ok {
			a.SetAttr(AttrDeadLetterSources, dlq.sources)
			emitted = append(emitted, a)
		}
	}
	r.sink.AddRead(r.unit(), "queues", len(urls)-len(tied)-len(dlqs), 0)
	for _, a := range emitted {
		r.sink.AddArtifact(a)
	}
	return ctx.Err()
}

// listQueues lists every queue URL of the unit, each once.
func (r *regionRead) listQueues(ctx context.Context) ([]string, error) {
	pager := awssqs.NewListQueuesPaginator(r.sqs, &awssqs.ListQueuesInput{MaxResults: aws.Int32(maxListResults)})
	var out []string
	err := awsconf.Pages(ctx, r.c.Timeout, pager.HasMorePages,
		func(ctx context.Context) (*awssqs.ListQueuesOutput, error) { return pager.NextPage(ctx) },
		func(p *awssqs.ListQueuesOutput) error {
			out = append(out, p.QueueUrls...)
			return nil
		})
	slices.Sort(out)
	return slices.Compact(out), err
}

// queueArtifact reads a tied queue's attributes into its artifact; a
// queue whose attributes do not read (or read as no answer of SQS's) is
// an error at its scope and no artifact.
func (r *regionRead) queueArtifact(ctx context.Context, q *queue) (model.Artifact, bool) {
	out, err := awsconf.Call(ctx, r.c.Timeout, func(ctx context.Context) (*awssqs.GetQueueAttributesOutput, error) {
		return r.sqs.GetQueueAttributes(ctx, &awssqs.GetQueueAttributesInput{QueueUrl: aws.String(q.url), AttributeNames: queueAttributes})
	})
	var counts queueCounts
	if err == nil {
		counts, err = countsOf(out.Attributes)
	}
	if err != nil {
		if ctx.Err() == nil {
			r.sink.AddError(r.queueScope(q.name), fmt.Errorf("sqs: %s: attributes of queue %s: %w", r.where, q.name, err))
		}
		return model.Artifact{}, false
	}
	attrs := out.Attributes
	a := model.Artifact{
		Kind: model.KindQueue, Scope: r.queueScope(q.name), URI: QueueURI(r.c.Source(), r.account, r.region, q.name),
		Name: q.name, BackfillID: q.tie.id, Correlation: q.tie.how, Owner: awssource.OwnerTag(q.tags), Labels: model.TagsOf(cloneTags(q.tags)),
		State: model.StateActive, CreatedAt: model.At(epoch(attrs[string(sqstypes.QueueAttributeNameCreatedTimestamp)])),
		ModifiedAt: model.At(epoch(attrs[string(sqstypes.QueueAttributeNameLastModifiedTimestamp)])),
	}
	a.SetKeep(q.tags[model.KeepUntilKey], q.tags[model.KeepReasonKey], "")
	counts.set(&a)
	a.SetAttr(AttrQueueURL, q.url)
	if s, err := strconv.ParseInt(attrs[string(sqstypes.QueueAttributeNameMessageRetentionPeriod)], 10, 64); err == nil && s > 0 {
		a.SetAttr(AttrMessageRetention, (time.Duration(s) * time.Second).String())
	}
	if target, maxReceive := redriveOf(attrs[string(sqstypes.QueueAttributeNameRedrivePolicy)]); target != "" {
		a.SetAttr(AttrDeadLetterTarget, target)
		if maxReceive != "" {
			a.SetAttr(AttrMaxReceiveCount, maxReceive)
		}
	}
	return a, true
}

// queueCounts are a queue's approximate message counts.
type queueCounts struct{ visible, inFlight, delayed int64 }

func (n queueCounts) total() int64 { return n.visible + n.inFlight + n.delayed }

func (n queueCounts) set(a *model.Artifact) {
	a.SetAttr(model.AttrMessages, strconv.FormatInt(n.total(), 10))
	a.SetAttr(AttrMessagesVisible, strconv.FormatInt(n.visible, 10))
	a.SetAttr(AttrMessagesInFlight, strconv.FormatInt(n.inFlight, 10))
	a.SetAttr(AttrMessagesDelayed, strconv.FormatInt(n.delayed, 10))
}

// countsOf reads the three counts; SQS always answers the attributes
// asked for, so one missing or not a count is not SQS's answer.
func countsOf(attrs map[string]string) (queueCounts, error) {
	var n queueCounts
	for _, f := range []struct {
		name sqstypes.QueueAttributeName
		to   *int64
	}{
		{sqstypes.QueueAttributeNameApproximateNumberOfMessages, &n.visible},
		{sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible, &n.inFlight},
		{sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed, &n.delayed},
	} {
		v, err := strconv.ParseInt(attrs[string(f.name)], 10, 64)
		if err != nil || v < 0 {
			return n, fmt.Errorf("the answer has no count %s (not an answer of SQS)", f.name)
		}
		*f.to = v
	}
	return n, nil
}

// redriveOf reads a RedrivePolicy: the dead-letter queue's ARN and the
// receives before a message moves there (a number or a string of one).
func redriveOf(policy string) (target, maxReceive string) {
	if policy == "" {
		return "", ""
	}
	var p struct {
		Target     string          `json:"deadLetterTargetArn"`
		MaxReceive json.RawMessage `json:"maxReceiveCount"`
	}
	if json.Unmarshal([]byte(policy), &p) != nil {
		return "", ""
	}
	return p.Target, strings.Trim(string(p.MaxReceive), `"`)
}

// deadLetter is a dead-letter queue tied through its source queues.
type deadLetter struct {
	*queue
	sources string
}

// deadLetterQueues finds the dead-letter queues of the tied queues that
// carry no backfill id of their own, and ties each one whose source queues
// (ListDeadLetterSourceQueues) are all tied to the same backfill: a
// dead-letter queue shared with a production queue is not the backfill's.
func (r *regionRead) deadLetterQueues(ctx context.Context, emitted []model.Artifact, listed map[string]*queue) []deadLetter {
	var candidates []string
	for _, a := range emitted {
		target := a.Attr(AttrDeadLetterTarget)
		name := resourceName(target)
		q, ok := listed[name]
		if !ok || target != r.queueARN(name) || q.tie.id != "" || r.unread[target] || slices.Contains(candidates, name) {
			continue // another account's or region's, tied already, or unread
		}
		candidates = append(candidates, name)
	}
	slices.Sort(candidates)
	var out []deadLetter
	for _, name := range candidates {
		q := listed[name]
		sources, err := r.deadLetterSources(ctx, q.url)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			r.sink.AddError(r.queueScope(name), fmt.Errorf("sqs: %s: source queues of dead-letter queue %s: %w", r.where, name, err))
			continue
		}
		var id string
		var names []string
		for _, s := range sources {
			sn := queueNameOf(s)
			t, ok := r.queueTies[r.queueARN(sn)]
			if !ok || (id != "" && t.id != id) {
				id = ""
				break
			}
			id = t.id
			names = append(names, sn)
		}
		if id == "" {
			continue
		}
		q.tie = tie{id, correlationRedrive}
		r.queueTies[r.queueARN(name)] = q.tie
		slices.Sort(names)
		out = append(out, deadLetter{queue: q, sources: strings.Join(names, ",")})
	}
	return out
}

func (r *regionRead) deadLetterSources(ctx context.Context, dlqURL string) ([]string, error) {
	pager := awssqs.NewListDeadLetterSourceQueuesPaginator(r.sqs, &awssqs.ListDeadLetterSourceQueuesInput{
		QueueUrl: aws.String(dlqURL), MaxResults: aws.Int32(maxListResults)})
	var out []string
	err := awsconf.Pages(ctx, r.c.Timeout, pager.HasMorePages,
		func(ctx context.Context) (*awssqs.ListDeadLetterSourceQueuesOutput, error) {
			return pager.NextPage(ctx)
		},
		func(p *awssqs.ListDeadLetterSourceQueuesOutput) error {
			out = append(out, p.QueueUrls...)
			return nil
		})
	return out, err
}

func cloneTags(tags map[string]string) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	return maps.Clone(tags)
}

// epoch reads SQS's timestamps: seconds since the epoch, as text.
func epoch(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0).UTC()
}
