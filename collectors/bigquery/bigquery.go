// Package bigquery collects the BigQuery machinery of backfills (temp
// tables, the dataset ACL entries a replay was granted) and runs a
// backfill's validation query under a cost guard (rule BF013).
package bigquery

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults.
const (
	defaultConcurrency    = 8
	defaultMaxBytesBilled = 1 << 30 // 1 GiB: a day-partitioned count, not a full scan
	defaultQueryTimeout   = 5 * time.Minute
	defaultOwnerLabel     = "owner"
)

// Values of dataset_acls.
const (
	ACLsAll      = "all"      // read every dataset's ACL (one datasets.get each)
	ACLsBackfill = "backfill" // only datasets that are backfill machinery
	ACLsNone     = "none"
)

func init() {
	collectors.Register("bigquery", func() collectors.Collector {
		return &Collector{
			FetchTableMetadata: true,
			DatasetACLs:        ACLsAll,
			Concurrency:        defaultConcurrency,
			MaxBytesBilled:     defaultMaxBytesBilled,
			QueryTimeout:       defaultQueryTimeout,
			Timeout:            remote.DefaultCallTimeout,
			OwnerLabel:         defaultOwnerLabel,
		}
	}, sampleConfig)
}

// Principal is an elevated-access principal of a backfill plan (member in
// IAM syntax, optional backfill_id).
type Principal = iamcond.Principal

// Collector lists datasets and tables, reads dataset ACLs, and verifies
// backfills' ranges with their validation queries.
type Collector struct {
	// Projects are the project ids whose datasets are listed.
	Projects []string `mapstructure:"projects"`
	// DatasetFilter is passed to datasets.list as its label filter
	// (e.g. "labels.backfill_id"); it makes listing cheap in big projects
	// but hides datasets tied only by name or declared asset.
	DatasetFilter string `mapstructure:"dataset_filter"`
	// FetchTableMetadata reads row counts, bytes and last-modified time
	// (tables.get) for the tables kept; tables.list lacks them.
	FetchTableMetadata bool `mapstructure:"fetch_table_metadata"`
	// DatasetACLs says whose dataset ACLs are read: all, backfill or none.
	DatasetACLs string `mapstructure:"dataset_acls"`
	// Principals are plans' elevated-access principals; their ACL entries
	// on any dataset become grants.
	Principals []Principal `mapstructure:"principals"`
	// Concurrency bounds datasets read at once and tables.get in flight.
	Concurrency int `mapstructure:"concurrency"`
	// OwnerLabel is the label key whose value is taken as a table's owner.
	OwnerLabel string `mapstructure:"owner_label"`

	// RunValidation allows Verify to run validation queries (they cost).
	RunValidation bool `mapstructure:"run_validation"`
	// MaxBytesBilled refuses a validation query whose dry run would
	// process more, and caps the real query's billing.
	MaxBytesBilled int64 `mapstructure:"max_bytes_billed"`
	// BillingProject runs the queries; defaults to the first project.
	BillingProject string `mapstructure:"billing_project"`
	// Location of the query jobs (US, EU, europe-west1...); empty lets
	// BigQuery infer it from the tables.
	Location     string        `mapstructure:"location"`
	QueryTimeout time.Duration `mapstructure:"query_timeout"`
	// PricePerTiB is the on-demand price of a TiB processed (USD), by
	// which `plan check --live` turns a dry run into money; 0 shows bytes only.
	PricePerTiB float64 `mapstructure:"price_per_tib"`
	// Timeout bounds each listing call (one page, one get), reading the
	// answer included; a call that runs out is not retried.
	Timeout time.Duration `mapstructure:"timeout"`
	// Lineage reads lineage from the query jobs' history (opt-in).
	Lineage Lineage `mapstructure:"lineage"`
	// Endpoint overrides the REST base URL (private endpoint, proxy);
	// https://host is completed to https://host/bigquery/v2/.
	Endpoint string `mapstructure:"endpoint"`

	svc    *bq.Service // listing, with the read-only scope
	jobs   *bq.Service // queries (query.go), with the BigQuery scope
	sel    *correlate.Selector
	source string // the source's name: plans name it in validation_source
	retry  remote.RetryPolicy
	now    func() time.Time
	// maxPages bounds one listing's pages; 0 is remote.DefaultMaxPages (tests lower it).
	maxPages int
	// clientOptions are added to the options Init builds clients with.
	clientOptions []option.ClientOption
}

// ReadsLineage says this source reads lineage: the query jobs are read for lineage only when configured.
func (c *Collector) ReadsLineage() bool { return c.Lineage.Jobs }

// Init validates the config and builds the clients with Application
// Default Credentials unless they were handed in. The selector recognises
// backfill machinery; the clock makes "expired" mean expired at the
// audit's time (--now).
func (c *Collector) Init(env collectors.Env) error {
	c.sel, c.now, c.source = env.Selector, env.Now, env.Source
	if err := gcp.CheckProjects(c.Projects, "datasets"); err != nil {
		return err
	}
	switch c.DatasetACLs {
	case "":
		c.DatasetACLs = ACLsAll
	case ACLsAll, ACLsBackfill, ACLsNone:
	default:
		return fmt.Errorf("dataset_acls: %q; expected all, backfill or none", c.DatasetACLs)
	}
	for i, p := range c.Principals {
		if strings.TrimSpace(p.Member) == "" {
			return fmt.Errorf("principals[%d].member: missing; expected e.g. serviceAccount:bf-1234@my-project.iam.gserviceaccount.com", i)
		}
	}
	if c.PricePerTiB < 0 {
		return fmt.Errorf("price_per_tib: %g; expected the price of a TiB processed, e.g. 6.25", c.PricePerTiB)
	}
	if c.MaxBytesBilled < 0 || (c.RunValidation && c.MaxBytesBilled == 0) {
		return fmt.Errorf("max_bytes_billed: %d; expected a positive byte count (default %d) when run_validation is true", c.MaxBytesBilled, int64(defaultMaxBytesBilled))
	}
	if err := c.checkLineage(); err != nil {
		return err
	}
	if err := remote.CheckTimeout("timeout", c.Timeout); err != nil {
		return err
	}
	if c.Concurrency <= 0 {
		c.Concurrency = defaultConcurrency
	}
	if c.QueryTimeout <= 0 {
		c.QueryTimeout = defaultQueryTimeout
	}
	if c.BillingProject == "" {
		c.BillingProject = c.Projects[0]
	}
	endpoint, err := c.endpointOptions()
	if err != nil {
		return err
	}
	ctx := context.Background()
	if c.svc == nil {
		// The HTTP client caps answers; deadlines come with each call.
		hc, err := c.httpClient(ctx, bq.CloudPlatformReadOnlyScope)
		if err != nil {
			return fmt.Errorf("bigquery: REST client (Application Default Credentials): %w", err)
		}
		svc, err := bq.NewService(ctx, append(endpoint, hc)...)
		if err != nil {
			return fmt.Errorf("bigquery: REST client: %w", err)
		}
		c.svc = svc
	}
	// The query client is built whatever the settings (it calls nothing
	// until asked): validation, the jobs' lineage and plan check --live's
	// dry runs use it.
	if c.jobs == nil {
		hc, err := c.httpClient(ctx, bq.BigqueryScope)
		if err != nil {
			return fmt.Errorf("bigquery: query client for %s (Application Default Credentials): %w", c.BillingProject, err)
		}
		jobs, err := bq.NewService(ctx, append(endpoint, hc)...)
		if err != nil {
			return fmt.Errorf("bigquery: query client for %s: %w", c.BillingProject, err)
		}
		c.jobs = jobs
	}
	return nil
}

// endpointOptions points the clients at Endpoint when it is set.
func (c *Collector) endpointOptions() ([]option.ClientOption, error) {
	return gcp.Endpoint("endpoint", c.Endpoint, "/bigquery/v2/")
}

// httpClient authenticates for scope as clientOptions say (Application
// Default Credentials by default) and caps every answer's size.
func (c *Collector) httpClient(ctx context.Context, scope string) (option.ClientOption, error) {
	hc, err := gcp.HTTPClient(ctx, append([]option.ClientOption{option.WithScopes(scope)}, c.clientOptions...)...)
	if err != nil {
		return nil, err
	}
	return option.WithHTTPClient(hc), nil
}

// Units are the configured projects.
func (c *Collector) Units(context.Context) ([]string, error) { return c.Projects, nil }

// CollectUnit reads one project's datasets and, when configured, its job
// history: its own unit, which answers or not apart from the listing.
func (c *Collector) CollectUnit(ctx context.Context, project string, sink collectors.Sink) error {
	err := c.collectProject(ctx, project, iamcond.NewMatcher(c.sel, c.Principals), sink)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if c.Lineage.Jobs {
		c.collectJobs(ctx, project, sink)
	}
	return err
}

// collectProject lists the datasets, then reads them a bounded number at a
// time. Failing to list the datasets fails the project (the caller records
// it there); a dataset that fails is recorded at that dataset's unit,
// JoinScope(project, dataset), and the others go on.
func (c *Collector) collectProject(ctx context.Context, project string, tie iamcond.Matcher, sink collectors.Sink) error {
	datasets, err := c.listDatasets(ctx, project)
	if err != nil {
		return fmt.Errorf("bigquery: list datasets of project %s: %w", project, err)
	}
	gets := make(chan struct{}, c.Concurrency) // tables.get in flight, shared by all datasets
	sem := make(chan struct{}, c.Concurrency)
	var wg sync.WaitGroup
	var partial atomic.Int64 // datasets whose ACL or tables could not be read
	read := 0
	for i, ds := range datasets {
		if ds.DatasetReference == nil || ds.DatasetReference.DatasetId == "" {
			// Malformed, not absent: the project did not fully answer.
			sink.AddError(project, fmt.Errorf("bigquery: list datasets of project %s: entry %d has no datasetReference", project, i))
			continue
		}
		read++
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			complete, err := c.collectDataset(ctx, project, ds, tie, gets, sink)
			if err != nil {
				sink.AddError(datasetScope(project, ds.DatasetReference.DatasetId), err)
			}
			if !complete || err != nil {
				partial.Add(1)
			}
		}()
	}
	wg.Wait()
	sink.AddRead(project, "datasets", read, int(partial.Load()))
	return nil
}
