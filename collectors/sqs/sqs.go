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
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sampleConfig string

func init() { collectors.Register("sqs", func() collectors.Collector { return New() }) }

// unitConcurrency is how many account/region units are read at once: each
// is its own pair of clients, and AWS's limits are per account and region.
const unitConcurrency = 4

// New returns an SQS collector with its defaults: SNS read too, the
// standard per-call timeout.
func New() *Collector {
	return &Collector{SNS: true, Settings: awsconf.Settings{Timeout: remote.DefaultCallTimeout}}
}

// Collector reads the queues, topics and subscriptions of every configured
// account and region.
type Collector struct {
	awsconf.Settings `mapstructure:",squash"`
	// SNS reads the topics and subscriptions beside the queues (default
	// true); false when the role may not read SNS.
	SNS bool `mapstructure:"sns"`

	env  collectors.Env
	base aws.Config

	// loadOptions are added to the SDK's configuration (tests: static
	// credentials).
	loadOptions []func(*config.LoadOptions) error

	mu      sync.Mutex
	targets []awsconf.Target  // resolved once, for the audit and the fix actions
	units   map[string]unitOf // the units Units declared
}

// unitOf is one declared unit: an account reached through its target, in
// one region.
type unitOf struct {
	target awsconf.Target
	region string
}

// SampleConfig returns the documented sources entry.
func (c *Collector) SampleConfig() string { return sampleConfig }

// UnitConcurrency lets the framework read a few accounts and regions at once.
func (c *Collector) UnitConcurrency() int { return unitConcurrency }

// Init checks the settings and builds the SDK configuration without
// calling AWS: credentials are resolved, and roles assumed, at the first
// call of each account.
func (c *Collector) Init(env collectors.Env) error {
	c.env = env
	c.BaseDir = env.BaseDir
	if err := c.Check(); err != nil {
		return err
	}
	if err := remote.CheckTimeout("timeout", c.Timeout); err != nil {
		return err
	}
	cfg, err := awsconf.Load(context.Background(), c.Settings, c.loadOptions...)
	if err != nil {
		return err
	}
	c.base = cfg
	return nil
}

func (c *Collector) sourceName() string {
	if c.env.Source != "" {
		return c.env.Source
	}
	return "sqs"
}

// accounts resolves the accounts once (awsconf.Accounts): Units and the
// fix actions share them.
func (c *Collector) accounts(ctx context.Context) ([]awsconf.Target, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.targets != nil {
		return c.targets, nil
	}
	targets, err := awsconf.Accounts(ctx, c.base, c.Settings, c.Timeout)
	if err != nil {
		return nil, err
	}
	c.targets = targets
	return targets, nil
}

// Units are model.JoinScope(account, region) for every account and region.
// An error listing the accounts (Organizations, or the caller's identity)
// fails the source; a role that cannot be assumed fails its account's
// units when they are read.
func (c *Collector) Units(ctx context.Context) ([]string, error) {
	targets, err := c.accounts(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqs source %s: %w", c.sourceName(), err)
	}
	units := map[string]unitOf{}
	var out []string
	for _, t := range targets {
		for _, r := range c.Regions {
			u := model.JoinScope(t.Account, r)
			units[u] = unitOf{target: t, region: r}
			out = append(out, u)
		}
	}
	c.mu.Lock()
	c.units = units
	c.mu.Unlock()
	return out, nil
}

// CollectUnit reads one account in one region: its queues (a failed
// listing fails the unit), then its topics and subscriptions (a failed
// SNS listing is an error at the unit's "sns" scope; the queues stand).
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	c.mu.Lock()
	u, ok := c.units[unit]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("sqs source %s: %s is not a unit Units declared", c.sourceName(), unit)
	}
	r := c.newRegionRead(u, sink)
	if err := r.queues(ctx); err != nil {
		return err
	}
	if c.SNS {
		r.sns(ctx)
	}
	return nil
}

// configFor is the SDK configuration of one account in one region.
func configFor(t awsconf.Target, region string) aws.Config {
	cfg := t.Config.Copy()
	cfg.Region = region
	return cfg
}

// where names an account and region in errors, with the role assumed to
// reach it: a role that cannot be assumed is named.
func where(t awsconf.Target, region string) string {
	s := "account " + t.Account + " in " + region
	if t.Role != "" {
		s += " (role " + t.Role + ")"
	}
	return s
}
