// Package scheduler collects the Amazon EventBridge Scheduler schedules a
// backfill left behind: the one-off at() schedule that fired the replay,
// the rate() or cron() schedule that ran it interval by interval, the
// schedule group made for it. They are scheduler jobs, judged by BF001
// and BF002 as Airflow's DAGs and Kubernetes' CronJobs are
// (docs/practice.md, "Inventory the machinery"). The type is named
// "scheduler" after the service's own short name (its API, CLI and ARNs
// say scheduler); no other collector has the name. One unit is an account
// in a region; a schedule group whose tags or schedules do not read is an
// error at its own scope.
package scheduler

import (
	"context"
	_ "embed"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	awsscheduler "github.com/aws/aws-sdk-go-v2/service/scheduler"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sampleConfig string

func init() { collectors.Register("scheduler", func() collectors.Collector { return New() }) }

// unitConcurrency is how many account/region units are read at once:
// the service's request limits are per account and region.
const unitConcurrency = 4

// New returns a Scheduler collector with its defaults.
func New() *Collector {
	return &Collector{Settings: awsconf.Settings{Timeout: remote.DefaultCallTimeout}}
}

// Collector reads the schedules of every configured account and region.
type Collector struct {
	awsconf.Settings `mapstructure:",squash"`

	env  collectors.Env
	base aws.Config
	// loadOptions are added to the SDK's configuration (tests: static
	// credentials, so nothing reaches AWS or instance metadata).
	loadOptions []func(*config.LoadOptions) error

	accounts awsconf.Resolver
	mu       sync.Mutex
	units    map[string]awsconf.Place // the units Units declared
}

// SampleConfig returns the documented sources entry.
func (c *Collector) SampleConfig() string { return sampleConfig }

// UnitConcurrency lets the framework read a few accounts and regions at once.
func (c *Collector) UnitConcurrency() int { return unitConcurrency }

// Init checks the settings and builds the SDK configuration without
// calling AWS: credentials are resolved, and roles assumed, at the first
// call in each account.
func (c *Collector) Init(env collectors.Env) error {
	c.env = env
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

func (c *Collector) source() string {
	if c.env.Source != "" {
		return c.env.Source
	}
	return "scheduler"
}

// Units are model.JoinScope(account, region) for every account and
// region. A failure to list the accounts (Organizations, the caller's
// identity) fails the source; a role that cannot be assumed fails its
// account's units when they are read.
func (c *Collector) Units(ctx context.Context) ([]string, error) {
	targets, err := c.accounts.Resolve(ctx, c.base, c.Settings)
	if err != nil {
		return nil, fmt.Errorf("scheduler source %s: %w", c.source(), err)
	}
	units := map[string]awsconf.Place{}
	var out []string
	for _, p := range awsconf.Places(targets, c.Regions) {
		u := model.JoinScope(p.Account, p.Region)
		units[u] = p
		out = append(out, u)
	}
	c.mu.Lock()
	c.units = units
	c.mu.Unlock()
	return out, nil
}

// CollectUnit reads one account in one region: its schedule groups and
// schedules (a failed listing fails the unit), each group's tags and each
// kept schedule (a failure is an error at its group's scope).
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	c.mu.Lock()
	p, ok := c.units[unit]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("scheduler source %s: %s is not a unit Units declared", c.source(), unit)
	}
	r := &regionRead{c: c, place: p, unit: unit, sink: sink, client: awsscheduler.NewFromConfig(p.Config())}
	return r.read(ctx)
}
