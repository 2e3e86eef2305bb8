// Package grafana collects the Grafana dashboards and Grafana-managed
// alert rules a backfill left behind, and the live ones that read a
// backfill's tables or jobs. It reads Grafana's HTTP API with a service
// account token (GET /api/folders, /api/search, /api/dashboards/uid/{uid},
// /api/v1/provisioning/alert-rules, and the dashboard.grafana.app resource
// of a dashboard stored in the v2 schema), or files (export_dir): a folder
// of dashboards in the shapes people keep them in (decode.go), or saved
// answers. A dashboard or rule tied to a backfill by its title, tags
// or labels is machinery made for it (temporary); any dashboard or rule
// whose panel queries name a tied table or job is reported with those
// reads, untied: it is live and blocks the table's cleanup.
package grafana

import (
	_ "embed"
	"fmt"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

//go:embed sample.yaml
var sampleConfig string

func init() {
	collectors.Register("grafana", New, sampleConfig)
}

// Defaults.
const (
	defaultConcurrency = 4
	maxConcurrency     = 32
	// pageSize is the limit of each folder and search page (search allows 5000).
	pageSize = 1000
)

// New returns a Grafana collector with its defaults filled in.
func New() *Grafana {
	return &Grafana{Config: apiclient.Config{Timeout: remote.DefaultCallTimeout}, Concurrency: defaultConcurrency}
}

// Grafana is one Grafana organisation, read with one service account.
type Grafana struct {
	apiclient.Config `mapstructure:",squash"`
	// Concurrency is how many dashboards are read at once.
	Concurrency int `mapstructure:"concurrency"`
	// MaxPages caps the pages of one listing (remote.DefaultMaxPages when 0).
	MaxPages int `mapstructure:"max_pages"`
	// Folders, when set, limits the folders read to these (uid or title;
	// "general" is the top level).
	Folders []string `mapstructure:"folders"`
	// Tags: dashboards carrying one of them are read wherever they are,
	// even in a folder outside Folders.
	Tags []string `mapstructure:"tags"`
	// ExportDir reads files instead of a server: a folder of dashboard
	// files (files.go), or saved API answers when it holds folders.json
	// (dir.go).
	ExportDir string `mapstructure:"export_dir"`

	// Retry governs retries of 429/5xx answers; tests make Sleep a no-op.
	Retry remote.RetryPolicy `mapstructure:"-"`

	env    collectors.Env
	client *apiclient.Client
	src    source
	notes  *notes
	run    *run // what Units found for this run's CollectUnit calls
}

// Inputs is the folder of saved API answers, when set.
func (g *Grafana) Inputs() []collectors.Input {
	if g.ExportDir == "" {
		return nil
	}
	return []collectors.Input{{Key: "export_dir", Path: g.env.Path(g.ExportDir)}}
}

// Init validates the config, reads the token it names and builds the
// client. It does not call the server. env names the source (the host
// part of its URIs), holds the selector that ties dashboards, rules and
// the tables their queries read, and the folder export_dir is relative to.
func (g *Grafana) Init(env collectors.Env) error {
	g.env = env
	if g.Concurrency == 0 {
		g.Concurrency = defaultConcurrency
	}
	if g.Concurrency < 0 || g.Concurrency > maxConcurrency {
		return fmt.Errorf("concurrency: %d is out of range (1 to %d)", g.Concurrency, maxConcurrency)
	}
	if g.MaxPages < 0 {
		return fmt.Errorf("max_pages: %d is negative", g.MaxPages)
	}
	for i, t := range g.Tags {
		if t == "" {
			return fmt.Errorf("tags[%d]: empty", i)
		}
	}
	if saved, err := apiclient.Saved(g.URL, g.ExportDir); err != nil {
		return err
	} else if saved {
		return remote.CheckTimeout("timeout", g.Timeout)
	}
	c, err := apiclient.Connect(g.Config, "the Grafana address, e.g. http://grafana:3000, or export_dir", g.Retry)
	if err != nil {
		return err
	}
	g.client = c
	g.src = &apiSource{c: c, maxPages: g.MaxPages}
	return nil
}

// base is the web address links are made from.
func (g *Grafana) base() string {
	if g.client != nil {
		return g.client.Base()
	}
	return ""
}

var (
	_ collectors.Collector = (*Grafana)(nil)
	_ collectors.Noter     = (*Grafana)(nil)
)
