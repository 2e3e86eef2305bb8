// Package airflow lists backfill machinery in Apache Airflow: DAGs that
// carry a backfill id in their tags or name, DAGs whose catch-up could
// start an unintended backfill, DAG runs of type backfill, and on
// Airflow 3 the scheduler's own backfill objects. It speaks the stable
// REST API of Airflow 2 (/api/v1, basic auth) and Airflow 3 (/api/v2, a
// JWT from /auth/token), or reads a directory of exported API responses.
package airflow

import (
	_ "embed"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults. Airflow caps a page at [api] maximum_page_limit, 100 unless
// the operator raised it; asking for more only returns 100.
const (
	defaultPageSize      = 100
	defaultConcurrency   = 8
	defaultCatchupMaxAge = 30 * 24 * time.Hour
	defaultRunLookback   = 90 * 24 * time.Hour
	defaultTimeout       = remote.DefaultCallTimeout
	defaultBudget        = 10 * time.Minute
	// defaultMaxPages bounds one listing: 10,000 pages of 100 is a million
	// DAGs or runs, far beyond any deployment, and a server that pages
	// forever (a huge total_entries, fresh items on every page) stops there.
	defaultMaxPages = 10000
	// maxConcurrency keeps a typo (concurrency: 10000) from opening
	// thousands of connections to one webserver.
	maxConcurrency = 64
)

// API version settings.
const (
	versionAuto = "auto"
	versionV1   = "1"
	versionV2   = "2"
)

func init() {
	collectors.Register("airflow", New, sampleConfig)
}

// New returns an Airflow collector with its defaults filled in.
func New() *Airflow {
	return &Airflow{
		APIVersion:    versionAuto,
		CatchupMaxAge: defaultCatchupMaxAge,
		CatchupCheck:  true,
		RunLookback:   defaultRunLookback,
		PageSize:      defaultPageSize,
		Concurrency:   defaultConcurrency,
		Timeout:       defaultTimeout,
		Budget:        defaultBudget,
		MaxPages:      defaultMaxPages,
		Pools:         true,
		Connections:   true,
		Variables:     true,
	}
}

// Airflow is one Airflow deployment, read through its REST API or an
// export of it.
type Airflow struct {
	// URL is the base URL of the webserver / API server, without /api/v1.
	URL string `mapstructure:"url"`
	// APIVersion is "auto" (ask /api/v2/version, then /api/v1/version),
	// "1" (Airflow 2) or "2" (Airflow 3).
	APIVersion string `mapstructure:"api_version"`
	// Username and PasswordEnv authenticate: basic auth on /api/v1, the
	// body of POST /auth/token on /api/v2.
	Username    string `mapstructure:"username"`
	PasswordEnv string `mapstructure:"password_env"`
	// TokenEnv names an env var holding a ready bearer token (Airflow 3
	// behind an auth manager without /auth/token, or a managed service).
	TokenEnv string `mapstructure:"token_env"`
	// ExportDir reads exported API responses instead of calling the API.
	ExportDir string `mapstructure:"export_dir"`
	// CatchupMaxAge: a scheduled DAG with catchup on and a start date
	// older than this is reported for BF106 even when not backfill-tagged.
	CatchupMaxAge time.Duration `mapstructure:"catchup_max_age"`
	// CatchupCheck turns off the per-DAG detail calls that find catch-up
	// risks (one GET per scheduled DAG) on very large deployments.
	CatchupCheck bool `mapstructure:"catchup_check"`
	// RunLookback bounds the Airflow 2 run listing, which cannot filter by
	// run type, to runs updated this recently; 0 lists every run.
	RunLookback time.Duration `mapstructure:"run_lookback"`
	// PageSize is the limit asked per page.
	PageSize int `mapstructure:"page_size"`
	// Concurrency bounds the per-DAG calls made at once.
	Concurrency int `mapstructure:"concurrency"`
	// Timeout bounds each HTTP call, reading the answer included.
	Timeout time.Duration `mapstructure:"timeout"`
	// Budget bounds the whole collection of this source, from Units on.
	// When it runs out, the DAGs not yet read are errors at their units
	// and the rest is reported: a slow Airflow degrades, it does not hang
	// the audit.
	Budget time.Duration `mapstructure:"budget"`
	// MaxPages bounds each listing; past it the listing is an error at
	// its unit.
	MaxPages int `mapstructure:"max_pages"`
	// Pools, Connections and Variables list those deployment-wide objects
	// and report the ones tied to a backfill (see resources.go). Each is
	// its own unit; reading connections needs its own permission.
	Pools       bool `mapstructure:"pools"`
	Connections bool `mapstructure:"connections"`
	Variables   bool `mapstructure:"variables"`

	// HTTPClient is used for every call; Init builds one when nil.
	HTTPClient *http.Client `mapstructure:"-"`
	// Retry bounds retries of 429 and 5xx answers.
	Retry remote.RetryPolicy `mapstructure:"-"`

	notesMu sync.Mutex
	notes   []string // see Notes

	// env's clock is the one the catch-up age and the run lookback are
	// measured on, so an audit run `--now` reads the same on any day.
	env      collectors.Env
	password string
	token    string

	// Set by Units for the units it declared: when the budget started,
	// the API or export opened, the budget projection of an API, and what
	// the DAG and backfill run listings said.
	started remote.Stopwatch
	src     api
	proj    *projection
	dags    *dagListing
}

// exportDir is export_dir resolved against the config file's directory.
func (c *Airflow) exportDir() string { return c.env.Path(c.ExportDir) }

// Inputs is the folder of saved API answers, when set.
func (c *Airflow) Inputs() []collectors.Input {
	if c.ExportDir == "" {
		return nil
	}
	return []collectors.Input{{Key: "export_dir", Path: c.exportDir()}}
}

// Init validates the config, reads the secrets it names and builds the
// HTTP client when none was handed in. URIs are built under the source's
// name (airflow://<name>/...), else the URL's host, or "airflow" for an
// export.
func (c *Airflow) Init(env collectors.Env) error {
	c.env = env
	switch c.APIVersion {
	case "", versionAuto:
		c.APIVersion = versionAuto
	case versionV1, versionV2:
	default:
		return fmt.Errorf("api_version: %q is not one of auto, 1, 2", c.APIVersion)
	}
	if c.PageSize <= 0 {
		return fmt.Errorf("page_size: %d; expected a positive number (Airflow caps it at 100 by default)", c.PageSize)
	}
	if c.Concurrency <= 0 || c.Concurrency > maxConcurrency {
		return fmt.Errorf("concurrency: %d; expected 1 to %d", c.Concurrency, maxConcurrency)
	}
	if err := remote.CheckTimeout("timeout", c.Timeout); err != nil {
		return err
	}
	if c.Budget <= 0 {
		return fmt.Errorf("budget: must be a positive duration such as 10m (got %s): it bounds the whole collection of this source", c.Budget)
	}
	if c.MaxPages <= 0 {
		return fmt.Errorf("max_pages: %d; expected a positive number", c.MaxPages)
	}
	if c.CatchupMaxAge < 0 || c.RunLookback < 0 {
		return fmt.Errorf("catchup_max_age / run_lookback: expected a duration of zero or more")
	}
	// A saved export's directory is checked by Units: Init reads no file.
	if saved, err := apiclient.Saved(c.URL, c.ExportDir); saved || err != nil {
		return err
	}
	if c.URL == "" {
		return fmt.Errorf("url: missing; set url (e.g. https://airflow.example.com) or export_dir")
	}
	u, err := remote.ParseAddress("url", c.URL)
	if err != nil {
		return err
	}
	if u.User != nil {
		return fmt.Errorf("url: must not carry credentials; use username and password_env")
	}
	c.URL = u.String()
	if err := c.readSecrets(); err != nil {
		return err
	}
	switch {
	case c.HTTPClient == nil:
		// An idle connection kept for each per-DAG call that runs at once.
		hc, err := remote.NewClient(remote.ClientOptions{Timeout: c.Timeout, Conns: c.Concurrency})
		if err != nil {
			return err
		}
		// No more connections than calls at once: a call that starts as
		// another ends waits for its connection instead of dialing one.
		if tr, ok := hc.Transport.(*http.Transport); ok {
			tr.MaxConnsPerHost = max(c.Concurrency, remote.DefaultConns)
		}
		c.HTTPClient = hc
	case c.HTTPClient.Timeout == 0 || c.HTTPClient.Timeout > c.Timeout:
		// A client handed in without a deadline still gets the call's:
		// Timeout covers the whole exchange, a dripping body included.
		hc := *c.HTTPClient
		hc.Timeout = c.Timeout
		c.HTTPClient = &hc
	}
	return nil
}

func (c *Airflow) readSecrets() error {
	if c.TokenEnv != "" {
		c.token = os.Getenv(c.TokenEnv)
		if c.token == "" {
			return fmt.Errorf("token_env: environment variable %s is empty or unset", c.TokenEnv)
		}
		return nil
	}
	if c.PasswordEnv != "" {
		c.password = os.Getenv(c.PasswordEnv)
		if c.password == "" {
			return fmt.Errorf("password_env: environment variable %s is empty or unset", c.PasswordEnv)
		}
		if c.Username == "" {
			return fmt.Errorf("username: missing; password_env is set, so username is needed too")
		}
	}
	return nil
}

// authority is the host part of every URI this source emits.
func (c *Airflow) authority() string {
	if c.env.Source != "" {
		return c.env.Source
	}
	if u, err := url.Parse(c.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return "airflow"
}

// where names the source in errors: the URL (never credentials) or the
// export directory as the config writes it (relative to the config file,
// so no error names this machine's absolute path for it).
func (c *Airflow) where() string {
	if c.ExportDir != "" {
		return "export " + filepath.ToSlash(c.ExportDir)
	}
	return redact.URL(c.URL)
}
