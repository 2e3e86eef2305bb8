// Package kubernetes lists backfill machinery in a Kubernetes cluster:
// CronJobs and Jobs that carry a backfill id label. A suspended CronJob
// left behind is a paused replay job; a Job without ttlSecondsAfterFinished,
// or a finished one nobody removed, is a replay run left behind.
package kubernetes

import (
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/kubeclient"
	"github.com/bfaudit/bfaudit/internal/remote"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	k8s "k8s.io/client-go/kubernetes"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults.
const (
	defaultLabelKey = "backfill-id"
	defaultPageSize = 500
	defaultTimeout  = remote.DefaultCallTimeout
)

func init() {
	collectors.Register("kubernetes", New, sampleConfig)
}

// New returns a Kubernetes collector with its defaults filled in.
func New() *Kubernetes {
	return &Kubernetes{
		LabelKeys: []string{defaultLabelKey},
		PageSize:  defaultPageSize,
		Timeout:   defaultTimeout,
	}
}

// Kubernetes is one cluster, read through its API server.
type Kubernetes struct {
	// Kubeconfig is a kubeconfig file. Empty: the in-cluster service
	// account when running in a pod, else $KUBECONFIG or ~/.kube/config.
	Kubeconfig string `mapstructure:"kubeconfig"`
	// Context picks a kubeconfig context other than the current one.
	Context string `mapstructure:"context"`
	// Namespaces to read; empty reads all namespaces in one call each.
	Namespaces []string `mapstructure:"namespaces"`
	// LabelKeys are the labels whose presence marks backfill machinery;
	// each is a label selector on the list calls and its value the id.
	LabelKeys []string `mapstructure:"label_keys"`
	// LabelSelector narrows every list call further (e.g. "team=data").
	LabelSelector string `mapstructure:"label_selector"`
	// OwnerLabel names the label or annotation that holds the owner.
	OwnerLabel string `mapstructure:"owner_label"`
	// PageSize is the limit asked per list call (continue tokens page on).
	PageSize int64 `mapstructure:"page_size"`
	// Timeout bounds each call to the API server, retries of one page
	// by client-go included; 0 is refused (it would mean no deadline).
	Timeout time.Duration `mapstructure:"timeout"`

	// FeatureFlags also reads the OpenFeature Operator's FeatureFlag
	// resources (core.openfeature.dev/v1beta1): every flag in them tied
	// to a backfill is a feature_flag. A cluster without the CRD gets a
	// note. It needs get/list on featureflags.
	FeatureFlags bool `mapstructure:"feature_flags"`

	// Client talks to the cluster; Init builds one when nil.
	Client k8s.Interface `mapstructure:"-"`
	// Dynamic lists FeatureFlag resources and Discovery says whether the
	// cluster serves them (feature_flags); Init builds both with Client,
	// so a test hands in fakes.
	Dynamic   dynamic.Interface    `mapstructure:"-"`
	Discovery kubeclient.Discovery `mapstructure:"-"`
	// Retry bounds retries of 429 and 5xx answers.
	Retry remote.RetryPolicy `mapstructure:"-"`

	env   collectors.Env
	host  string
	notes []string
	// flags is set by Units when the cluster serves FeatureFlag
	// resources: every namespace then lists them.
	flags bool
	// strict is set when Init built the client: answers then come from a
	// real API server, which always gives a list its resourceVersion, so
	// an answer without one is not a list (a proxy's page, a 200 with
	// something else) and must not read as "nothing there".
	strict bool
}

// Init validates the config and builds the client when none was handed
// in. URIs are built under the source's name
// (kubernetes://<name>/<namespace>/...), else the API server's host.
func (c *Kubernetes) Init(env collectors.Env) error {
	c.env = env
	if len(c.LabelKeys) == 0 {
		return fmt.Errorf("label_keys: empty; give at least one label key (default %s)", defaultLabelKey)
	}
	for i, k := range c.LabelKeys {
		if _, err := labels.Parse(k); err != nil || strings.ContainsAny(k, "=!,() ") {
			return fmt.Errorf("label_keys[%d]: %q is not a label key", i, k)
		}
	}
	if c.LabelSelector != "" {
		if _, err := labels.Parse(c.LabelSelector); err != nil {
			return fmt.Errorf("label_selector: %q does not parse: %v", c.LabelSelector, err)
		}
	}
	for i, ns := range c.Namespaces {
		if strings.TrimSpace(ns) == "" {
			return fmt.Errorf("namespaces[%d]: empty; leave namespaces out to read all", i)
		}
	}
	if c.PageSize <= 0 {
		return fmt.Errorf("page_size: %d; expected a positive number", c.PageSize)
	}
	if err := remote.CheckTimeout("timeout", c.Timeout); err != nil {
		return err
	}
	if c.Client != nil {
		if c.FeatureFlags && (c.Dynamic == nil || c.Discovery == nil) {
			return errors.New("feature_flags: a client was handed in without a dynamic and a discovery client")
		}
		return nil
	}
	cfg, err := kubeclient.Config(c.Kubeconfig, c.Context)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	bound(cfg, c.Timeout)
	c.strict = true
	if u, err := url.Parse(cfg.Host); err == nil {
		c.host = u.Host
	}
	cs, err := k8s.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("kubeconfig: build a client: %w", err)
	}
	c.Client = cs
	if c.FeatureFlags {
		if c.Dynamic, c.Discovery, err = kubeclient.Dynamic(cfg); err != nil {
			return fmt.Errorf("kubeconfig: %w", err)
		}
	}
	return nil
}

// Notes says what the run found that is not an error: a cluster that
// does not serve FeatureFlag resources.
func (c *Kubernetes) Notes() []string { return c.notes }

// authority is the host part of every URI this source emits.
func (c *Kubernetes) authority() string {
	switch {
	case c.env.Source != "":
		return c.env.Source
	case c.host != "":
		return c.host
	}
	return "kubernetes"
}
