// Package cloudasset collects the Google Cloud machinery of backfills for a
// whole organization, folder or project through Cloud Asset Inventory:
// BigQuery datasets, tables and dataset ACL entries, Pub/Sub topics and
// subscriptions, service accounts, their keys, and project IAM bindings
// with their conditions. Two searches per scope (SearchAllResources,
// SearchAllIamPolicies), filtered on the server by backfill labels and name
// prefixes, replace the per-project listings of the bigquery, pubsub and
// gcpiam collectors, so calls grow with the machinery found, not with the
// number of projects. It emits the very artifacts those collectors emit
// (same URIs, kinds, scopes and attributes, built by their own code), so
// findings and fingerprints do not change when a user switches. It also
// reads `gcloud asset` search and export output files, for teams that
// cannot grant bfaudit organization-wide read.
package cloudasset

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	asset "cloud.google.com/go/asset/apiv1"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"google.golang.org/api/option"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults.
const (
	defaultOwnerLabel = "owner"
	// maxPageSize is the most both search calls return in one page.
	maxPageSize = 500
	// batchSize is how many names one follow-up search asks about.
	batchSize = 20
)

func init() {
	collectors.Register("cloudasset", func() collectors.Collector {
		return &Collector{OwnerLabel: defaultOwnerLabel, PageSize: maxPageSize, Timeout: remote.DefaultCallTimeout}
	}, sampleConfig)
}

// Principal is an elevated-access principal of a backfill plan (member in
// IAM syntax, optional backfill_id).
type Principal = iamcond.Principal

// Collector searches Cloud Asset Inventory, or reads its output files.
type Collector struct {
	// Scopes are searched: organizations/N, folders/N or projects/P.
	Scopes []string `mapstructure:"scopes"`
	// Files are `gcloud asset search-all-resources|search-all-iam-policies
	// --format=json` or `gcloud asset export` output files, read instead of
	// (or as well as) searching.
	Files []string `mapstructure:"files"`
	// Principals are plans' elevated-access principals, as in gcpiam and
	// bigquery.
	Principals []Principal `mapstructure:"principals"`
	// OwnerLabel is the label whose value is a table's owner (bigquery's
	// owner_label).
	OwnerLabel string `mapstructure:"owner_label"`
	// NamePrefixes are the words backfill names start with; the searches
	// ask the server for them (bf*). Required when the correlation's name
	// patterns are not the defaults: a server cannot run a regexp.
	NamePrefixes []string `mapstructure:"name_prefixes"`
	// Query and IAMQuery replace the server-side filter of the resource and
	// IAM policy searches (advanced: what they leave out is never seen).
	Query    string `mapstructure:"query"`
	IAMQuery string `mapstructure:"iam_query"`
	// PageSize is asked of each search page (at most 500).
	PageSize int `mapstructure:"page_size"`
	// Timeout bounds each call (one page), reading the answer included; a
	// call that runs out is not retried.
	Timeout time.Duration `mapstructure:"timeout"`
	// Endpoint overrides the API's base URL (private endpoint, proxy).
	Endpoint string `mapstructure:"endpoint"`

	client  searcher
	closer  func() error
	sel     *correlate.Selector
	retry   remote.RetryPolicy
	now     func() time.Time
	baseDir string // the config file's folder, for relative file paths
	// maxPages bounds one search's pages; 0 is remote.DefaultMaxPages (tests lower it).
	maxPages int
	// clientOptions are added to the options Init builds the client with.
	clientOptions []option.ClientOption
}

var (
	scopeRE  = regexp.MustCompile(`^(organizations/[0-9]+|folders/[0-9]+|projects/[a-z0-9][a-z0-9.:-]*)$`)
	prefixRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// Init validates the config and builds the REST client (Application
// Default Credentials) unless one was handed in or only files are read.
// The selector recognises backfill machinery, the clock makes "expired"
// mean expired at the audit's time (--now), and relative file paths are
// read from the config file's folder.
func (c *Collector) Init(env collectors.Env) error {
	c.sel, c.now, c.baseDir = env.Selector, env.Now, env.BaseDir
	if len(c.Scopes) == 0 && len(c.Files) == 0 {
		return errors.New("scopes: missing; list organizations/N, folders/N or projects/P to search (or files: gcloud asset output to read)")
	}
	for i, s := range c.Scopes {
		if !scopeRE.MatchString(s) {
			return fmt.Errorf("scopes[%d]: %q; expected organizations/<number>, folders/<number> or projects/<id>", i, s)
		}
	}
	for i, f := range c.Files {
		if strings.TrimSpace(f) == "" {
			return fmt.Errorf("files[%d]: empty path", i)
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
	switch {
	case c.PageSize == 0:
		c.PageSize = maxPageSize
	case c.PageSize < 0 || c.PageSize > maxPageSize:
		return fmt.Errorf("page_size: %d; expected 1 to %d", c.PageSize, maxPageSize)
	}
	if c.OwnerLabel == "" {
		c.OwnerLabel = defaultOwnerLabel
	}
	if err := c.checkPrefixes(); err != nil {
		return err
	}
	if len(c.Scopes) == 0 || c.client != nil {
		return nil
	}
	return c.newClient()
}

// Inputs are the exported asset files.
func (c *Collector) Inputs() []collectors.Input {
	return collectors.Inputs(c.baseDir, "files", c.Files)
}

// checkPrefixes fills the name prefixes from the default name pattern, or
// asks for them when the patterns were changed.
func (c *Collector) checkPrefixes() error {
	for i, p := range c.NamePrefixes {
		if !prefixRE.MatchString(p) {
			return fmt.Errorf("name_prefixes[%d]: %q; expected letters, digits, - or _ (a word names start with, such as bf)", i, p)
		}
	}
	if len(c.NamePrefixes) > 0 || len(c.Scopes) == 0 || (c.Query != "" && c.IAMQuery != "") {
		return nil
	}
	if !defaultPatterns(c.sel) {
		return errors.New("name_prefixes: missing; the correlation's name_patterns are not the defaults, so list the words backfill names start with (the search runs on the server, which cannot run a regular expression)")
	}
	c.NamePrefixes = []string{"bf"}
	return nil
}

func defaultPatterns(sel *correlate.Selector) bool {
	if len(sel.NamePatterns) != len(correlate.DefaultNamePatterns) {
		return false
	}
	for i, re := range sel.NamePatterns {
		if re.String() != correlate.DefaultNamePatterns[i] {
			return false
		}
	}
	return true
}

// cloudPlatformScope is what the search methods ask for; there is no
// narrower read-only scope for them.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

func (c *Collector) newClient() error {
	ctx := context.Background()
	opts := []option.ClientOption{}
	if c.Endpoint != "" {
		u, err := remote.ParseAddress("endpoint", c.Endpoint)
		if err != nil {
			return err
		}
		opts = append(opts, option.WithEndpoint(u.String()))
	}
	// The HTTP client caps answers; deadlines come with each call.
	hc, err := gcp.HTTPClient(ctx, append([]option.ClientOption{option.WithScopes(cloudPlatformScope)}, c.clientOptions...)...)
	if err != nil {
		return fmt.Errorf("cloudasset: HTTP client (Application Default Credentials): %w", err)
	}
	// The generated REST client sends the paged search calls without
	// their context (http.NewRequest, no WithContext), so a context
	// deadline never reaches the connection: the HTTP client's own
	// timeout is what bounds each call, reading the answer included.
	hc.Timeout = c.Timeout
	client, err := asset.NewRESTClient(ctx, append(opts, option.WithHTTPClient(hc))...)
	if err != nil {
		return fmt.Errorf("cloudasset: client: %w", err)
	}
	c.client, c.closer = client, client.Close
	return nil
}

// Close releases the client.
func (c *Collector) Close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer()
}
