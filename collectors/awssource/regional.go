// Package awssource is what every regional AWS source shares beyond the
// SDK plumbing of internal/awsconf: its settings, the SDK configuration
// Init builds from them, and its units, one per account and region,
// each reached through the account's role.
package awssource

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

// unitConcurrency is how many account/region units are read at once:
// AWS's request limits are per account and region.
const unitConcurrency = 4

// Regional is embedded (`mapstructure:",squash"`) by a source that reads
// each configured account in each configured region: it brings Init,
// Units and UnitConcurrency; the source writes CollectUnit, asking Place
// for its unit's account, region and credentials.
type Regional struct {
	awsconf.Settings `mapstructure:",squash"`

	// Env is what Init was handed: the source's name, selector and clock.
	Env collectors.Env `mapstructure:"-"`
	// LoadOptions are added to the SDK's configuration (tests: static
	// credentials, so nothing reaches AWS or instance metadata).
	LoadOptions []func(*config.LoadOptions) error `mapstructure:"-"`

	system   string // the type: the name of a source without one
	global   string // a global service's default region ("": regional)
	base     aws.Config
	accounts awsconf.Resolver
	mu       sync.Mutex
	units    map[string]awsconf.Place // the units Units declared
}

// NewRegional is the part of a source of type system with its defaults.
func NewRegional(system string) Regional {
	return Regional{Settings: awsconf.Settings{Timeout: remote.DefaultCallTimeout}, system: system}
}

// NewGlobal is the part of a source of a global service (IAM): its units
// are the accounts alone, each read in the first region, which picks
// only the partition and the STS endpoint; region when none is set.
func NewGlobal(system, region string) Regional {
	return Regional{Settings: awsconf.Settings{Timeout: remote.DefaultCallTimeout}, system: system, global: region}
}

// UnitConcurrency lets the framework read a few accounts and regions at once.
func (r *Regional) UnitConcurrency() int { return unitConcurrency }

// Init checks the settings and builds the SDK configuration without
// calling AWS: credentials are resolved, and roles assumed, at the first
// call in each account.
func (r *Regional) Init(env collectors.Env) error {
	r.Env = env
	r.BaseDir = env.BaseDir
	if r.global != "" && len(r.Regions) == 0 {
		r.Regions = []string{r.global}
	}
	if err := r.Check(); err != nil {
		return err
	}
	cfg, err := awsconf.Load(context.Background(), r.Settings, r.LoadOptions...)
	if err != nil {
		return err
	}
	r.base = cfg
	return nil
}

// Source is the source's name, else its type: the host of its URIs.
func (r *Regional) Source() string {
	if r.Env.Source != "" {
		return r.Env.Source
	}
	return r.system
}

// Units are model.JoinScope(account, region) for every account and
// region (a global service's: the accounts). A failure to list the accounts (Organizations, the caller's
// identity) fails the source; a role that cannot be assumed fails its
// account's units when they are read.
func (r *Regional) Units(ctx context.Context) ([]string, error) {
	targets, err := r.accounts.Resolve(ctx, r.base, r.Settings)
	if err != nil {
		return nil, fmt.Errorf("%s source %s: %w", r.system, r.Source(), err)
	}
	units := map[string]awsconf.Place{}
	var out []string
	regions := r.Regions
	if r.global != "" {
		regions = regions[:1]
	}
	for _, p := range awsconf.Places(targets, regions) {
		u := model.JoinScope(p.Account, p.Region)
		if r.global != "" {
			u = p.Account
		}
		units[u] = p
		out = append(out, u)
	}
	r.mu.Lock()
	r.units = units
	r.mu.Unlock()
	return out, nil
}

// Place is the account and region of a unit Units declared.
func (r *Regional) Place(unit string) (awsconf.Place, error) {
	r.mu.Lock()
	p, ok := r.units[unit]
	r.mu.Unlock()
	if !ok {
		return awsconf.Place{}, fmt.Errorf("%s source %s: %s is not a unit Units declared", r.system, r.Source(), unit)
	}
	return p, nil
}

// PlaceOf reaches an account and region by name (a fix action acting on
// what a report names): through the account's role, as the audit did.
func (r *Regional) PlaceOf(ctx context.Context, account, region string) (awsconf.Place, error) {
	return r.accounts.Place(ctx, r.base, r.Settings, account, region)
}
