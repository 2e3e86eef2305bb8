package prometheus

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/kubeclient"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// prometheusRuleGVR is the Prometheus Operator's resource.
var prometheusRuleGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}

// DefaultPageSize is the limit asked per list call, as the kubernetes
// collector asks.
const DefaultPageSize = 500

// scopeObjects starts the URIs of a cluster's PrometheusRules.
const scopeObjects = "prometheusrules"

// maxErrorCharacters bounds an error taken from the API server.
const maxErrorCharacters = 400

// Cluster is the `kubernetes:` block of a prometheus source: it reads the
// PrometheusRule objects of a cluster that runs the Prometheus Operator.
// Its keys and defaults are the kubernetes collector's.
type Cluster struct {
	// Kubeconfig is a kubeconfig file. Empty: the in-cluster service
	// account when running in a pod, else $KUBECONFIG or ~/.kube/config.
	Kubeconfig string `mapstructure:"kubeconfig"`
	// Context picks a kubeconfig context other than the current one.
	Context string `mapstructure:"context"`
	// Namespaces to read; empty reads all namespaces in one listing.
	Namespaces []string `mapstructure:"namespaces"`
	// PageSize is the limit asked per list call (0: DefaultPageSize).
	PageSize int64 `mapstructure:"page_size"`

	// Dynamic lists the objects and Discovery says whether the cluster
	// serves them; Init builds both when Dynamic is nil, so tests hand in
	// fakes.
	Dynamic   dynamic.Interface    `mapstructure:"-"`
	Discovery kubeclient.Discovery `mapstructure:"-"`

	host string
	// strict is set when Init built the clients: a real API server gives
	// every list its resourceVersion, so an answer without one is not a
	// list and must not read as "no PrometheusRules".
	strict bool
}

// init checks the block and builds the clients when none were handed in.
// Every call gets the source's timeout.
func (c *Cluster) init(p *Prometheus) error {
	for i, ns := range c.Namespaces {
		if strings.TrimSpace(ns) == "" {
			return fmt.Errorf("kubernetes.namespaces[%d]: empty; leave namespaces out to read all", i)
		}
	}
	switch {
	case c.PageSize == 0:
		c.PageSize = DefaultPageSize
	case c.PageSize < 0:
		return fmt.Errorf("kubernetes.page_size: %d; expected a positive number", c.PageSize)
	}
	if c.Dynamic != nil {
		if c.Discovery == nil {
			return errors.New("kubernetes: a dynamic client was handed in without a discovery client")
		}
		return nil
	}
	cfg, err := kubeclient.Config(c.Kubeconfig, c.Context)
	if err != nil {
		return fmt.Errorf("kubernetes.kubeconfig: %w", err)
	}
	// The transport, its bounds and what is retried are the kubernetes
	// collector's.
	kubeclient.Bound(cfg, p.Timeout)
	if u, err := url.Parse(cfg.Host); err == nil {
		c.host = u.Host
	}
	if c.Dynamic, c.Discovery, err = kubeclient.Dynamic(cfg); err != nil {
		return fmt.Errorf("kubernetes.kubeconfig: %w", err)
	}
	c.strict = true
	return nil
}

// clusterName names the cluster in errors: the API server's host.
func (c *Cluster) clusterName() string {
	if c.host != "" {
		return "cluster " + c.host
	}
	return "cluster"
}

// clusterUnits asks whether the cluster serves PrometheusRules (a failure
// fails the source; a cluster without the CRD holds none: a note, not an
// error) and declares the namespaces to read, or the whole source when all
// namespaces are listed at once. The units are those of the kubernetes
// collector: each namespace (its listing, on any page), then each object
// under it (a spec that does not parse).
func (p *Prometheus) clusterUnits(ctx context.Context) ([]string, error) {
	c := p.Kubernetes
	served, err := kubeclient.Serves(ctx, c.Discovery, prometheusRuleGVR, p.callCluster)
	if err != nil {
		return nil, fmt.Errorf("prometheus source %s: %s: discover %s: %w", p.sourceName(), c.clusterName(), prometheusRuleGVR.GroupVersion(), err)
	}
	p.served = served
	if !served {
		p.notes = append(p.notes, fmt.Sprintf("%s does not serve %s (no PrometheusRule CRD): no PrometheusRule to read",
			c.clusterName(), prometheusRuleGVR.GroupResource()))
	}
	return kubeclient.NamespaceUnits(c.Namespaces), nil
}

// collectNamespace reads the PrometheusRules of one namespace (all of them
// for the whole source), each object at its own unit below.
func (p *Prometheus) collectNamespace(ctx context.Context, unit string, sink collectors.Sink) error {
	c := p.Kubernetes
	if !p.served {
		sink.AddRead(unit, readObjects, 0, 0)
		return nil
	}
	ns := kubeclient.NamespaceOf(unit, c.Namespaces)
	where := fmt.Sprintf("prometheus source %s: %s", p.sourceName(), c.clusterName())
	objects, err := p.listPrometheusRules(ctx, ns)
	if err != nil {
		hint := ""
		if apierrors.IsForbidden(err) {
			hint = "; grant get/list on prometheusrules (monitoring.coreos.com)"
			if ns == metav1.NamespaceAll {
				hint += " cluster-wide, or set kubernetes.namespaces to the ones this identity may read"
			}
		}
		// client-go's decoding errors quote the answer: a 50 MB one
		// must not become a 50 MB message.
		msg := redact.Clip(err.Error(), maxErrorCharacters)
		if ns == metav1.NamespaceAll {
			return fmt.Errorf("%s: list prometheusrules in all namespaces: %s%s", where, msg, hint)
		}
		return fmt.Errorf("%s: list prometheusrules: %s%s", where, msg, hint)
	}
	if len(objects) == 0 {
		sink.AddRead(unit, readObjects, 0, 0)
	}
	for i := range objects {
		o := &objects[i]
		scope := model.JoinScope(o.GetNamespace(), o.GetName())
		groups, err := p.clusterObjectGroups(o)
		if err != nil {
			sink.AddError(scope, fmt.Errorf("%s: %w", where, err))
			continue
		}
		sink.AddRead(scope, readObjects, 1, 0)
		addGroupReads(sink, scope, groups, 0)
		for _, g := range groups {
			p.emit(g, sink.AddArtifact)
		}
	}
	return nil
}

// listPrometheusRules pages the listing of one namespace (all when ns is
// empty) with limit and continue tokens, under a remote.Pager: max_pages
// pages at most, and a continue token the server already gave, or a page
// of rules already listed, stops the walk with an error.
func (p *Prometheus) listPrometheusRules(ctx context.Context, ns string) ([]unstructured.Unstructured, error) {
	c := p.Kubernetes
	opts := metav1.ListOptions{Limit: c.PageSize}
	what := "GET /apis/" + prometheusRuleGVR.Group + "/" + prometheusRuleGVR.Version + "/" + prometheusRuleGVR.Resource
	if ns != "" {
		what = "GET /apis/" + prometheusRuleGVR.Group + "/" + prometheusRuleGVR.Version + "/namespaces/" + ns + "/" + prometheusRuleGVR.Resource
	}
	pager := remote.Pager{What: what, Max: p.MaxPages, MaxKey: "max_pages"}
	var all []unstructured.Unstructured
	for page := 1; ; page++ {
		var list *unstructured.UnstructuredList
		err := p.callCluster(ctx, func(ctx context.Context) (err error) {
			list, err = c.Dynamic.Resource(prometheusRuleGVR).Namespace(ns).List(ctx, opts)
			return err
		})
		if err != nil {
			return all, err
		}
		if list == nil || (c.strict && list.GetResourceVersion() == "") {
			return all, fmt.Errorf("page %d: the answer is not a Kubernetes list (no metadata.resourceVersion)", page)
		}
		keys := make([]string, 0, len(list.Items))
		for _, o := range list.Items {
			if err := inNamespace(ns, &o); err != nil {
				return all, fmt.Errorf("page %d: %w", page, err)
			}
			all = append(all, o)
			keys = append(keys, o.GetNamespace()+"/"+o.GetName())
		}
		opts.Continue = list.GetContinue()
		if err := pager.Next(opts.Continue, keys...); err != nil {
			return all, err
		}
		if opts.Continue == "" {
			return all, nil
		}
	}
}

// inNamespace ties an object of a namespaced listing to that namespace,
// the unit it is reported under: an answer holding another namespace's
// object (or, cluster-wide, one without a namespace) is not trusted.
func inNamespace(ns string, o *unstructured.Unstructured) error {
	switch {
	case ns == metav1.NamespaceAll && o.GetNamespace() == "":
		return fmt.Errorf("the answer holds %q without a namespace", redact.Clip(o.GetName(), 200))
	case ns == metav1.NamespaceAll:
	case o.GetNamespace() == "":
		o.SetNamespace(ns)
	case o.GetNamespace() != ns:
		return fmt.Errorf("the answer for namespace %s holds %q of namespace %s", ns, redact.Clip(o.GetName(), 200), redact.Clip(o.GetNamespace(), 200))
	}
	return nil
}

// callCluster makes one call with the source's timeout, retrying the API
// server's throttling and transient failures under the policy.
func (p *Prometheus) callCluster(ctx context.Context, call func(context.Context) error) error {
	return remote.Retry(ctx, p.Retry, func() error {
		callCtx, cancel := context.WithTimeout(ctx, p.Timeout)
		defer cancel()
		return kubeclient.Retryable(call(callCtx))
	})
}

// clusterObjectGroups reads one PrometheusRule from the cluster through
// the same conversion as one in a file; only where it is differs: its URI
// (prometheus://<source>/prometheusrules/<namespace>/<name>/<group>/...)
// and its unit (<namespace>/<name>).
func (p *Prometheus) clusterObjectGroups(o *unstructured.Unstructured) ([]group, error) {
	var m manifest
	m.APIVersion, m.Kind = o.GetAPIVersion(), o.GetKind()
	m.Metadata.Name, m.Metadata.Namespace, m.Metadata.Labels = o.GetName(), o.GetNamespace(), o.GetLabels()
	spec, ok := o.Object["spec"].(map[string]any)
	if ok {
		if _, has := spec["groups"]; !has {
			// The API server prunes what its schema does not know and
			// the operator writes no empty list: a spec without groups
			// holds no rule, as Prometheus loads it.
			return nil, nil
		}
		if err := m.Spec.Encode(spec); err != nil {
			return nil, fmt.Errorf("spec: %w", err)
		}
	}
	object, rgs, err := p.parseObject(m)
	if err != nil {
		return nil, fmt.Errorf("PrometheusRule: %w", err)
	}
	prefix := p.clusterObjectURI(m.Metadata.Namespace, m.Metadata.Name)
	return ruleGroups(rgs, "", model.JoinScope(m.Metadata.Namespace, m.Metadata.Name), prefix, object, m.Metadata.Labels), nil
}
