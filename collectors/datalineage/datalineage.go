// Package datalineage reads table lineage from the Google Cloud Data
// Lineage API (Dataplex lineage): which tables are derived from the
// configured ones, downstream, and when the processes that write them
// last ran. It emits model.Edge and model.Build, no artifacts.
package datalineage

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	lineage "cloud.google.com/go/datacatalog/lineage/apiv1"
	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	gax "github.com/googleapis/gax-go/v2"
	"google.golang.org/api/option"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults.
const (
	defaultMaxDepth = 5
	defaultMaxLinks = 10000
	defaultMaxPages = 1000
	defaultLocation = "us"
	maxDepthLimit   = 50
)

func init() {
	collectors.Register("datalineage", func() collectors.Collector {
		return &Collector{
			Locations: []string{defaultLocation},
			MaxDepth:  defaultMaxDepth,
			MaxLinks:  defaultMaxLinks,
			MaxPages:  defaultMaxPages,
			Builds:    true,
			Timeout:   remote.DefaultCallTimeout,
		}
	}, sampleConfig)
}

// api is the part of the official client the collector calls, so a test
// can hand in another.
type api interface {
	SearchLinks(ctx context.Context, req *lineagepb.SearchLinksRequest, opts ...gax.CallOption) *lineage.LinkIterator
	BatchSearchLinkProcesses(ctx context.Context, req *lineagepb.BatchSearchLinkProcessesRequest, opts ...gax.CallOption) *lineage.ProcessLinksIterator
	GetProcess(ctx context.Context, req *lineagepb.GetProcessRequest, opts ...gax.CallOption) (*lineagepb.Process, error)
	ListRuns(ctx context.Context, req *lineagepb.ListRunsRequest, opts ...gax.CallOption) *lineage.RunIterator
}

// Collector follows the links downstream of the configured tables in each
// project and location.
type Collector struct {
	// Projects and Locations are where lineage is recorded: the API keeps
	// links in the project and location of the process that made them.
	Projects  []string `mapstructure:"projects"`
	Locations []string `mapstructure:"locations"`
	// Tables are the fully qualified names lineage is followed from, as
	// the API spells them: bigquery:project.dataset.table.
	Tables []string `mapstructure:"tables"`
	// MaxDepth is how many links downstream are followed from a table.
	MaxDepth int `mapstructure:"max_depth"`
	// MaxLinks bounds the links read in one project and location; more is
	// an error at that unit, never a silent truncation.
	MaxLinks int `mapstructure:"max_links"`
	// MaxPages bounds the pages of one listing.
	MaxPages int `mapstructure:"max_pages"`
	// Builds reads the processes behind the links and their runs, for the
	// last build of each table written.
	Builds bool `mapstructure:"builds"`
	// Endpoint overrides the service address (host:port).
	Endpoint string `mapstructure:"endpoint"`
	// Timeout bounds each call (one page); a call that runs out is not
	// retried.
	Timeout time.Duration `mapstructure:"timeout"`

	client api
	closer interface{ Close() error }
	retry  remote.RetryPolicy
	// clientOptions are added to the options Init builds the client with.
	clientOptions []option.ClientOption
}

var (
	locationPattern = regexp.MustCompile(`^[a-z]+(-[a-z]+[0-9]*)?$`)
	fqnPattern      = regexp.MustCompile(`^[a-z_]+:[^\s]+$`)
)

// ReadsLineage says this source reads lineage: Data Lineage is lineage.
func (c *Collector) ReadsLineage() bool { return true }

// Init validates the config and builds the client with Application
// Default Credentials unless one was handed in.
func (c *Collector) Init(collectors.Env) error {
	if err := gcp.CheckProjects(c.Projects, "lineage"); err != nil {
		return err
	}
	if len(c.Locations) == 0 {
		c.Locations = []string{defaultLocation}
	}
	for i, l := range c.Locations {
		if !locationPattern.MatchString(l) {
			return fmt.Errorf("locations[%d]: %q; expected a location such as us, eu or europe-west1", i, l)
		}
	}
	if len(c.Tables) == 0 {
		return errors.New("tables: missing; list the fully qualified names lineage is followed from, e.g. bigquery:my-project.sales.orders")
	}
	for i, t := range c.Tables {
		if !fqnPattern.MatchString(t) {
			return fmt.Errorf("tables[%d]: %q; expected a fully qualified name such as bigquery:my-project.sales.orders", i, t)
		}
	}
	if c.MaxDepth < 0 || c.MaxDepth > maxDepthLimit {
		return fmt.Errorf("max_depth: %d; expected 1 to %d (default %d)", c.MaxDepth, maxDepthLimit, defaultMaxDepth)
	}
	if c.MaxDepth == 0 {
		c.MaxDepth = defaultMaxDepth
	}
	if err := remote.CheckCount("max_links", &c.MaxLinks, defaultMaxLinks); err != nil {
		return err
	}
	if err := remote.CheckCount("max_pages", &c.MaxPages, defaultMaxPages); err != nil {
		return err
	}
	if err := remote.CheckTimeout("timeout", c.Timeout); err != nil {
		return err
	}
	if c.client != nil {
		return nil
	}
	var opts []option.ClientOption
	if c.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(c.Endpoint))
	}
	client, err := lineage.NewClient(context.Background(), append(opts, c.clientOptions...)...)
	if err != nil {
		return fmt.Errorf("datalineage: client (Application Default Credentials): %w", err)
	}
	c.client, c.closer = client, client
	return nil
}

// Close releases the client's connections.
func (c *Collector) Close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer.Close()
}

// Scopes: a project and location's links, and the runs read for builds.
func linksScope(project, location string) string { return model.JoinScope(project, location) }
func runsScope(project, location string) string {
	return model.JoinScope(project, location, "runs")
}

// Units are the configured projects, each in each location.
func (c *Collector) Units(context.Context) ([]string, error) {
	var units []string
	for _, p := range c.Projects {
		for _, l := range c.Locations {
			units = append(units, linksScope(p, l))
		}
	}
	return units, nil
}

// CollectUnit reads one project and location.
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	for _, p := range c.Projects {
		for _, l := range c.Locations {
			if linksScope(p, l) == unit {
				return c.collectUnit(ctx, p, l, sink)
			}
		}
	}
	return fmt.Errorf("datalineage: %s is no configured project and location", unit)
}

// collectUnit emits one project and location's edges once all of them
// were read (a cut graph would hide downstream tables), then its builds,
// whose failure is recorded at the runs unit only.
func (c *Collector) collectUnit(ctx context.Context, project, location string, sink collectors.Sink) error {
	parent := "projects/" + project + "/locations/" + location
	links, err := c.downstream(ctx, parent)
	if err != nil {
		return fmt.Errorf("datalineage: links in %s: %w", parent, err)
	}
	scope := linksScope(project, location)
	sink.AddRead(scope, "links", len(links), 0)
	via := map[string]string{} // link name -> its process, when builds are read
	var builds []model.Build
	if c.Builds && len(links) > 0 {
		var processes int
		builds, via, processes, err = c.builds(ctx, parent, links)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			sink.AddError(runsScope(project, location), fmt.Errorf("datalineage: runs in %s: %w", parent, err))
			builds, via = nil, map[string]string{}
		} else {
			sink.AddRead(runsScope(project, location), "processes", processes, 0)
		}
	}
	for _, l := range links {
		v := via[l.GetName()]
		if v == "" {
			v = l.GetName()
		}
		sink.AddEdge(model.Edge{
			Parent: model.TableRef(l.GetSource().GetFullyQualifiedName()),
			Child:  model.TableRef(l.GetTarget().GetFullyQualifiedName()),
			System: "datalineage", Scope: scope, Via: v,
		})
	}
	for _, b := range builds {
		b.Scope = runsScope(project, location)
		sink.AddBuild(b)
	}
	return nil
}

// fqn is how an entity is followed: the API's own spelling.
func fqn(e *lineagepb.EntityReference) string { return strings.TrimSpace(e.GetFullyQualifiedName()) }
