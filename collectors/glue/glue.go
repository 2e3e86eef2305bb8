// Package glue collects the AWS Glue Data Catalog tables a backfill left
// behind: the Athena scratch table a replay wrote its corrected rows to
// (refunds_bf_1234_tmp), the tables of a scratch database, the external
// table over s3://…/tmp/bf-1234/. They are temporary tables, judged by
// BF005 as BigQuery's and PostgreSQL's are (docs/practice.md, "Inventory
// the machinery"). One unit is an account in a region; a database whose
// tables do not read is an error at its own scope.
package glue

import (
	"context"
	_ "embed"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	awsglue "github.com/aws/aws-sdk-go-v2/service/glue"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sampleConfig string

func init() { collectors.Register("glue", func() collectors.Collector { return New() }) }

// unitConcurrency is how many account/region units are read at once:
// Glue's request limits are per account and region.
const unitConcurrency = 4

// New returns a Glue collector with its defaults.
func New() *Collector {
	return &Collector{Settings: awsconf.Settings{Timeout: remote.DefaultCallTimeout}}
}

// Collector reads the Data Catalog of every configured account and region.
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
	return "glue"
}

// Units are model.JoinScope(account, region) for every account and
// region. A failure to list the accounts (Organizations, the caller's
// identity) fails the source; a role that cannot be assumed fails its
// account's units when they are read.
func (c *Collector) Units(ctx context.Context) ([]string, error) {
	targets, err := c.accounts.Resolve(ctx, c.base, c.Settings)
	if err != nil {
		return nil, fmt.Errorf("glue source %s: %w", c.source(), err)
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

// CollectUnit reads one account in one region: its databases (a failed
// listing fails the unit), then each database's tables (a failed listing
// is an error at the database's scope; the other databases stand).
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	c.mu.Lock()
	p, ok := c.units[unit]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("glue source %s: %s is not a unit Units declared", c.source(), unit)
	}
	r := &catalogRead{c: c, place: p, unit: unit, sink: sink, client: awsglue.NewFromConfig(p.Config()), tagBudget: maxTagReads}
	return r.read(ctx)
}
