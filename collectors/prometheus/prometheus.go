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
	"path/filepath"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
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
	collectors.Register("prometheus", New, sampleConfig)
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

	// Retry governs retries of 429/5xx answers; tests make Sleep a no-op.
	Retry remote.RetryPolicy `mapstructure:"-"`

	env    collectors.Env
	client *apiclient.Client
	promql parser.Parser
	notes  []string

	// What Units found, for CollectUnit: whether the cluster serves
	// PrometheusRules; the rule files by unit, and the errors met listing
	// them by scope.
	served    bool
	ruleFiles map[string]ruleFile
	listErrs  map[string][]error
	// skipped lists, by kind of file, the files that held no rules.
	skipped map[string][]string
}

// Notes says what the last run found worth saying that is no error: a
// cluster without the PrometheusRule CRD, files that hold no rules.
func (p *Prometheus) Notes() []string {
	return append(slices.Clone(p.notes), skippedNotes(p.skipped)...)
}

// sourceName is the name this source reports under, the host part of its
// URIs: the source's name, else the URL's host (or "prometheus").
func (p *Prometheus) sourceName() string { return p.env.Name(p.URL, "prometheus") }

// Inputs are the rule files, files, folders or globs.
func (p *Prometheus) Inputs() []collectors.Input {
	return collectors.Inputs(p.env.BaseDir, "rule_files", p.RuleFiles)
}

// Init validates the config and builds the client. It reads no file and
// calls no server: what cannot be read fails the run's coverage, not the
// config. The selector's assets are read at collection time; relative
// rule_files are read from the config file's folder.
func (p *Prometheus) Init(env collectors.Env) error {
	p.env = env
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
		c, err := apiclient.New(p.Config, nil, p.Retry)
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
	// Experimental functions on: a rule a server accepts must parse here.
	p.promql = parser.NewParser(parser.Options{EnableExperimentalFunctions: true})
	return nil
}
