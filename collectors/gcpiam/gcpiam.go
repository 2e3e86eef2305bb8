// Package gcpiam collects the access a backfill was given in Google Cloud:
// project IAM bindings held by a backfill's principals or labelled for a
// backfill in their condition, and the user-managed keys of its service
// accounts (docs/practice.md, "Plan before you run").
package gcpiam

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	crm "google.golang.org/api/cloudresourcemanager/v3"
	iam "google.golang.org/api/iam/v1"
	"google.golang.org/api/option"
)

//go:embed sample.yaml
var sampleConfig string

func init() {
	collectors.Register("gcpiam", func() collectors.Collector {
		return &Collector{ListServiceAccounts: true, Concurrency: 8, Timeout: remote.DefaultCallTimeout}
	}, sampleConfig)
}

// Collector reads project IAM policies and service-account keys.
type Collector struct {
	// Projects are the project ids whose IAM policy and service accounts
	// are read.
	Projects []string `mapstructure:"projects"`
	// Principals are the elevated-access principals of backfill plans,
	// each optionally tied to its backfill id.
	Principals []Principal `mapstructure:"principals"`
	// ListServiceAccounts lists each project's service accounts to find
	// those made for a backfill (id in the email, display name or
	// description), and reads their keys.
	ListServiceAccounts bool `mapstructure:"list_service_accounts"`
	// Concurrency bounds the calls in flight (projects, key listings).
	Concurrency int `mapstructure:"concurrency"`
	// Timeout bounds each call (one policy, one page, one key listing),
	// reading the answer included; a call that runs out is not retried.
	Timeout time.Duration `mapstructure:"timeout"`
	// Endpoint overrides both APIs' base URL (a private endpoint, a
	// proxy, a test server); ResourceManagerEndpoint and IAMEndpoint
	// override one each.
	Endpoint                string `mapstructure:"endpoint"`
	ResourceManagerEndpoint string `mapstructure:"resource_manager_endpoint"`
	IAMEndpoint             string `mapstructure:"iam_endpoint"`

	crm   *crm.Service
	iam   *iam.Service
	sel   *correlate.Selector
	retry remote.RetryPolicy
	now   func() time.Time
	// survey is this run's, read by Units.
	survey survey
	// maxPages bounds one listing's pages; 0 is remote.DefaultMaxPages (tests lower it).
	maxPages int
	// clientOptions are added to the options Init builds clients with;
	// tests hand in an HTTP client pointed at their fake.
	clientOptions []option.ClientOption
}

// Init validates the config and builds the API clients with Application
// Default Credentials unless they were handed in. The selector recognises
// backfill machinery; the clock makes "expired" mean expired at the
// audit's time (--now).
func (c *Collector) Init(env collectors.Env) error {
	c.sel, c.now = env.Selector, env.Now
	if len(c.Projects) == 0 && len(c.Principals) == 0 {
		return errors.New("projects: missing; list the project ids whose IAM policy to read (or principals to check keys of)")
	}
	if len(c.Projects) > 0 {
		if err := gcp.CheckProjects(c.Projects, "IAM policy"); err != nil {
			return err
		}
	}
	for i, p := range c.Principals {
		if strings.TrimSpace(p.Member) == "" {
			return fmt.Errorf("principals[%d].member: missing; expected e.g. serviceAccount:bf-1234@my-project.iam.gserviceaccount.com", i)
		}
	}
	if err := remote.CheckTimeout("timeout", c.Timeout); err != nil {
		return err
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	ctx := context.Background()
	var hc option.ClientOption
	if c.crm == nil || c.iam == nil {
		// One HTTP client for both APIs: it caps answers; deadlines come
		// with each call.
		client, err := gcp.HTTPClient(ctx, append([]option.ClientOption{option.WithScopes(cloudPlatformScope)}, c.clientOptions...)...)
		if err != nil {
			return fmt.Errorf("gcpiam: HTTP client (Application Default Credentials): %w", err)
		}
		hc = option.WithHTTPClient(client)
	}
	if c.crm == nil {
		opts, err := c.endpoint("resource_manager_endpoint", c.ResourceManagerEndpoint, hc)
		if err != nil {
			return err
		}
		svc, err := crm.NewService(ctx, opts...)
		if err != nil {
			return fmt.Errorf("gcpiam: resource manager client: %w", err)
		}
		c.crm = svc
	}
	if c.iam == nil {
		opts, err := c.endpoint("iam_endpoint", c.IAMEndpoint, hc)
		if err != nil {
			return err
		}
		svc, err := iam.NewService(ctx, opts...)
		if err != nil {
			return fmt.Errorf("gcpiam: IAM client: %w", err)
		}
		c.iam = svc
	}
	return nil
}

// cloudPlatformScope is what both APIs ask for by default; listing keys
// has no narrower one.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// endpoint adds the base URL override for one API (its own setting, key,
// else endpoint) to its client option. Both APIs serve from the host's
// root.
func (c *Collector) endpoint(key, specific string, hc option.ClientOption) ([]option.ClientOption, error) {
	if specific == "" {
		key, specific = "endpoint", c.Endpoint
	}
	opts, err := gcp.Endpoint(key, specific, "")
	return append([]option.ClientOption{hc}, opts...), err
}

// survey is what Units read: each project's policy and account listing,
// held for its unit, and the accounts whose keys each unit reads.
type survey struct {
	policies map[string]*buffer // by project
	listings map[string]*buffer // by accountsScope(project)
	keys     map[string][]account
}

// Units reads every project's IAM policy and service-account listing,
// concurrently: the accounts whose keys are read, and the unit their keys
// fall under, are known only once all of them answered (an account bound
// in one project and listed in another is read once, under its listing).
// The units are then:
//
//   - a project p, its IAM policy;
//   - JoinScope(p, "serviceAccounts"), p's account listing and the keys of
//     the accounts under it (account.unit), read a bounded number at a
//     time; p is also one the account's e-mail names, or "-", for an
//     account only declared (config or plan principals).
//
// A call that refuses (no permission, not found, no answer in time) is
// the error of its unit, and the others go on.
func (c *Collector) Units(ctx context.Context) ([]string, error) {
	tie := iamcond.NewMatcher(c.sel, c.Principals)
	s := survey{policies: map[string]*buffer{}, listings: map[string]*buffer{}, keys: map[string][]account{}}
	for _, p := range c.Projects {
		s.policies[p] = &buffer{}
		if c.ListServiceAccounts {
			s.listings[accountsScope(p)] = &buffer{}
		}
	}
	accounts := newAccountSet()
	sem := make(chan struct{}, c.Concurrency)
	var wg sync.WaitGroup
	for _, p := range c.Projects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			pol := s.policies[p]
			pol.err = c.collectBindings(ctx, p, tie, pol, accounts)
			if l := s.listings[accountsScope(p)]; l != nil {
				l.err = c.collectAccounts(ctx, p, tie, accounts, l)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	accounts.addDeclared(tie, c.Principals, c.sel.Principals)
	for _, a := range accounts.list() {
		u := accountsScope(a.owner())
		s.keys[u] = append(s.keys[u], a)
	}
	var units []string
	declared := map[string]bool{}
	declare := func(u string) {
		if !declared[u] {
			declared[u] = true
			units = append(units, u)
		}
	}
	for _, p := range c.Projects {
		declare(p)
		if u := accountsScope(p); s.listings[u] != nil || s.keys[u] != nil {
			declare(u)
		}
	}
	for _, u := range slices.Sorted(maps.Keys(s.keys)) {
		declare(u) // keys of accounts of projects not configured
	}
	if len(units) == 0 {
		// No project, and no declared principal is a service account:
		// the source answers, with nothing to read.
		units = []string{""}
	}
	c.survey = s
	return units, nil
}

// CollectUnit reports a project's policy, or its account listing and
// reads the keys of the accounts under it.
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	if pol, ok := c.survey.policies[unit]; ok {
		return pol.replay(sink)
	}
	var err error
	if l, ok := c.survey.listings[unit]; ok {
		err = l.replay(sink)
	}
	c.collectKeys(ctx, c.survey.keys[unit], sink)
	if unit == "" {
		sink.AddRead("", "service-account keys", 0, 0)
	}
	return err
}
