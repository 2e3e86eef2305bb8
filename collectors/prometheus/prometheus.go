// Package prometheus collects the alerting and recording rules a backfill
// left behind: rules tied to a backfill by a label, an annotation, their
// name or group, or by an expression that selects the backfill's series
// (backfill_id="bf-1234"). It reads a running Prometheus through
// /api/v1/rules, rule files and PrometheusRule manifests from disk, or
// the PrometheusRule objects of a Kubernetes cluster, parsed with the
// Prometheus project's own packages (rulefmt, the PromQL parser). Each rule is an `alert` artifact carrying its expression, its
// state and whether it watches only backfill series (BF007).
package prometheus

import (
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
	"github.com/prometheus/prometheus/promql/parser"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults. Prometheus 3 pages /api/v1/rules by rule group when asked
// (group_limit); older servers answer every group at once.
const (
	DefaultGroupLimit = 200
	DefaultMaxPages   = 10_000
)

func init() {
	collectors.Register("prometheus", func() collectors.Collector { return New() })
}

// New returns a Prometheus collector with its defaults filled in.
func New() *Prometheus {
	return &Prometheus{
		Config:     apiclient.Config{Timeout: remote.DefaultCallTimeout},
		GroupLimit: DefaultGroupLimit,
		MaxPages:   DefaultMaxPages,
	}
}

// Prometheus is one Prometheus server, a set of rule files, or the
// PrometheusRule objects of one cluster.
type Prometheus struct {
	apiclient.Config `mapstructure:",squash"`
	// RuleFiles reads rule files instead of a server: paths or globs
	// (rules/*.yml), relative to the config file. A file may also hold
	// PrometheusRule objects (kubectl get prometheusrules -o yaml).
	RuleFiles []string `mapstructure:"rule_files"`
	// Kubernetes reads the PrometheusRule objects of a cluster instead.
	Kubernetes *Cluster `mapstructure:"kubernetes"`
	// GroupLimit is the number of rule groups asked per page.
	GroupLimit int `mapstructure:"group_limit"`
	// MaxPages bounds the paged rule listing.
	MaxPages int `mapstructure:"max_pages"`

	// HTTP is the client; Init builds one when nil, so tests can hand in
	// their own.
	HTTP *http.Client `mapstructure:"-"`
	// Retry governs retries of 429/5xx answers; tests make Sleep a no-op.
	Retry remote.RetryPolicy `mapstructure:"-"`

	name    string
	baseDir string
	client  *apiclient.Client
	sel     *correlate.Selector
	promql  parser.Parser
	notes   []string
}

// SampleConfig returns the documented sample source entry.
func (p *Prometheus) SampleConfig() string { return sampleConfig }

// UseSelector keeps the selector that says which rules are backfill
// machinery; its Assets are read at Collect time.
func (p *Prometheus) UseSelector(s *correlate.Selector) { p.sel = s }

// SetSourceName sets the name this source reports under, the host part of
// its URIs. Until it is called the URL's host (or "prometheus") is used.
func (p *Prometheus) SetSourceName(name string) { p.name = name }

// SetBaseDir resolves relative rule_files against the config file's
// directory; the loader calls it after Init.
func (p *Prometheus) SetBaseDir(dir string) { p.baseDir = dir }

// Notes says what the last Collect found worth saying that is no error:
// a cluster without the PrometheusRule CRD.
func (p *Prometheus) Notes() []string { return p.notes }

func (p *Prometheus) sourceName() string {
	if p.name != "" {
		return p.name
	}
	if u, err := url.Parse(p.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return "prometheus"
}

// Inputs are the rule files, files, folders or globs.
func (p *Prometheus) Inputs() []collectors.Input {
	return collectors.Inputs(p.baseDir, "rule_files", p.RuleFiles)
}

// Init validates the config and builds the client. It reads no file and
// calls no server: what cannot be read fails the run's coverage, not the
// config.
func (p *Prometheus) Init() error {
	if err := remote.CheckTimeout("timeout", p.Timeout); err != nil {
		return err
	}
	set := 0
	for _, on := range []bool{p.URL != "", len(p.RuleFiles) > 0, p.Kubernetes != nil} {
		if on {
			set++
		}
	}
	switch {
	case set == 0:
		return errors.New("url, rule_files or kubernetes: set one: the Prometheus address (http://prometheus:9090), rule files to read, or a cluster's PrometheusRules (kubernetes: {})")
	case set > 1:
		return errors.New("url, rule_files and kubernetes: set one, not several (configure one source for each)")
	}
	if p.GroupLimit < 1 {
		return fmt.Errorf("group_limit: must be positive, got %d", p.GroupLimit)
	}
	if p.MaxPages < 1 {
		return fmt.Errorf("max_pages: must be positive, got %d", p.MaxPages)
	}
	for i, f := range p.RuleFiles {
		if strings.TrimSpace(f) == "" {
			return fmt.Errorf("rule_files[%d]: empty path", i)
		}
		if _, err := filepath.Match(f, ""); err != nil {
			return fmt.Errorf("rule_files[%d]: %q is not a valid glob: %v", i, f, err)
		}
	}
	if p.URL != "" {
		c, err := apiclient.New(p.Config, p.HTTP, p.Retry)
		if err != nil {
			return err
		}
		p.client = c
	} else if p.Username != "" || p.PasswordEnv != "" || p.TokenEnv != "" || p.CAFile != "" {
		return errors.New("username, password_env, token_env, ca_file: only used with url, not with rule_files or kubernetes")
	}
	if p.Kubernetes != nil {
		if err := p.Kubernetes.init(p); err != nil {
			return err
		}
	}
	if p.sel == nil {
		p.sel = correlate.MustSelector()
	}
	// Experimental functions on: a rule a server accepts must parse here.
	p.promql = parser.NewParser(parser.Options{EnableExperimentalFunctions: true})
	return nil
}
