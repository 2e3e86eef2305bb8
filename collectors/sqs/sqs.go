// Package sqs collects the Amazon SQS queues and Amazon SNS topics and
// subscriptions a backfill left behind: the retry queue a replay fed, its
// dead-letter queue still holding the messages that failed, the replay's
// topic and the subscriptions that fan it out (docs/practice.md,
// "Inventory the machinery"; rule BF006). SNS is read with SQS, in the same
// account and region, because a subscription is backfill machinery when
// the queue it feeds is: a production topic still subscribed to a
// replay's retry queue is tied through the queue's tags or name.
package sqs

import (
	"context"
	_ "embed"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/awssource"
)

//go:embed sample.yaml
var sampleConfig string

func init() { collectors.Register("sqs", New, sampleConfig) }

// New returns an SQS collector with its defaults: SNS read too, the
// standard per-call timeout.
func New() *Collector { return &Collector{Regional: awssource.NewRegional("sqs"), SNS: true} }

// Collector reads the queues, topics and subscriptions of every configured
// account and region (awssource.Regional: its settings, units and
// accounts).
type Collector struct {
	awssource.Regional `mapstructure:",squash"`
	// SNS reads the topics and subscriptions beside the queues (default
	// true); false when the role may not read SNS.
	SNS bool `mapstructure:"sns"`
}

// CollectUnit reads one account in one region: its queues (a failed
// listing fails the unit), then its topics and subscriptions (a failed
// SNS listing is an error at the unit's "sns" scope; the queues stand).
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	p, err := c.Place(unit)
	if err != nil {
		return err
	}
	r := c.newRegionRead(p, sink)
	if err := r.queues(ctx); err != nil {
		return err
	}
	if c.SNS {
		r.sns(ctx)
	}
	return nil
}
