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
	"strings"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/iamcond"
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
	})
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
	// maxPages bounds one listing's pages; 0 is remote.DefaultMaxPages (tests lower it).
	maxPages int
	// clientOptions are added to the options Init builds clients with;
	// tests hand in an HTTP client pointed at their fake.
	clientOptions []option.ClientOption
}

// SampleConfig returns the documented sources entry.
func (c *Collector) SampleConfig() string { return sampleConfig }

// UseSelector keeps the selector used to recognise backfill machinery.
func (c *Collector) UseSelector(s *correlate.Selector) { c.sel = s }

// SetClock makes "expired" mean expired at the audit's time (--now).
func (c *Collector) SetClock(now func() time.Time) { c.now = now }

// Init validates the config and builds the API clients with Application
// Default Credentials unless they were handed in.
func (c *Collector) Init() error {
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
	if c.sel == nil {
		c.sel = correlate.MustSelector()
	}
	if c.now == nil {
		c.now = time.Now
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
		svc, err := crm.NewService(ctx, c.endpoint(c.ResourceManagerEndpoint, hc)...)
		if err != nil {
			return fmt.Errorf("gcpiam: resource manager client: %w", err)
		}
		c.crm = svc
	}
	if c.iam == nil {
		svc, err := iam.NewService(ctx, c.endpoint(c.IAMEndpoint, hc)...)
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

// endpoint adds the base URL override for one API to its client option.
func (c *Collector) endpoint(specific string, hc option.ClientOption) []option.ClientOption {
	opts := []option.ClientOption{hc}
	endpoint := specific
	if endpoint == "" {
		endpoint = c.Endpoint
	}
	if endpoint != "" {
		if !strings.HasSuffix(endpoint, "/") {
			endpoint += "/"
		}
		opts = append(opts, option.WithEndpoint(endpoint))
	}
	return opts
}

// Collect reads every project concurrently. Units: a project's IAM
// policy is the project ("p"); its service-account listing is
// JoinScope(p, "serviceAccounts"); one account's keys are
// JoinScope(p, "serviceAccounts", email), p being the project the account
// was found through (see account.unit). A unit that refuses (no
// permission, not found, no answer in time) is recorded there and the
// others go on; only when nothing at all answered does Collect fail.
func (c *Collector) Collect(ctx context.Context, sink collectors.Sink) error {
	tie := iamcond.NewMatcher(c.sel, c.Principals)
	var (
		mu       sync.Mutex
		answered int
		failures []error
	)
	record := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures = append(failures, err)
			return
		}
		answered++
	}

	keyOwners := newAccountSet()
	sem := make(chan struct{}, c.Concurrency)
	var wg sync.WaitGroup
	for _, p := range c.Projects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			err := c.collectBindings(ctx, p, tie, sink, keyOwners)
			if err != nil {
				sink.AddError(p, err)
			}
			record(err)
			if c.ListServiceAccounts {
				err := c.collectAccounts(ctx, p, tie, keyOwners, sink)
				if err != nil {
					sink.AddError(accountsScope(p), err)
				}
				record(err)
			}
		}()
	}
	wg.Wait()
	keyOwners.addDeclared(tie, c.Principals, c.sel.Principals)
	c.collectKeys(ctx, keyOwners.list(), sink, record)

	if answered == 0 && len(failures) > 0 {
		return fmt.Errorf("gcpiam: no project answered: %w", errors.Join(failures...))
	}
	return ctx.Err()
}
