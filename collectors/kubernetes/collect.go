package kubernetes

import (
	"context"
	"fmt"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/kubeclient"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxPages bounds one listing: the API announces no page count, and a
// server that hands out continue tokens forever must not keep the audit.
const maxPages = 10_000

// Units asks once whether the cluster serves FeatureFlag resources (with
// feature_flags; every namespace needs the answer, and a failed discovery
// fails the source), then declares the namespaces to read: the configured
// ones, or the whole source when all namespaces are read in one listing.
func (c *Kubernetes) Units(ctx context.Context) ([]string, error) {
	c.notes, c.flags = nil, false
	if c.FeatureFlags {
		served, err := kubeclient.Serves(ctx, c.Discovery, FeatureFlagGVR, c.call)
		if err != nil {
			return nil, fmt.Errorf("kubernetes %s: discover %s: %w", c.authority(), FeatureFlagGVR.GroupVersion(), err)
		}
		if !served {
			c.notes = append(c.notes, fmt.Sprintf("cluster %s does not serve %s (no OpenFeature Operator FeatureFlag CRD): no FeatureFlag to read",
				c.authority(), FeatureFlagGVR.GroupResource()))
		}
		c.flags = served
	}
	return kubeclient.NamespaceUnits(c.Namespaces), nil
}

// CollectUnit lists labelled CronJobs and Jobs (and FeatureFlags) in one
// namespace, or cluster-wide for the whole source. Every artifact carries
// its namespace as scope, and a namespace whose listing fails (Forbidden,
// a timeout, a malformed answer, on any page or kind) fails as a whole, so
// nothing it held is concluded gone.
func (c *Kubernetes) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	ns := kubeclient.NamespaceOf(unit, c.Namespaces)
	cronJobs, jobs, err := c.listNamespace(ctx, ns)
	var featureFlags []unstructured.Unstructured
	if err == nil && c.flags {
		featureFlags, err = c.listFeatureFlags(ctx, ns)
	}
	if err != nil {
		if ns == metav1.NamespaceAll {
			return c.fail(err)
		}
		return fmt.Errorf("kubernetes %s: namespace %s: %w", c.authority(), ns, err)
	}
	addReads(sink, ns, c.flags, cronJobs, jobs, featureFlags)
	for _, cj := range cronJobs {
		sink.AddArtifact(c.cronJobArtifact(cj))
	}
	for _, j := range jobs {
		sink.AddArtifact(c.jobArtifact(j))
	}
	for i := range featureFlags {
		unit := model.JoinScope(featureFlags[i].GetNamespace(), featureFlags[i].GetName())
		arts, errs := c.featureFlagArtifacts(&featureFlags[i], func(read, partial int) {
			sink.AddRead(unit, "flags", read, partial)
		})
		for _, a := range arts {
			sink.AddArtifact(a)
		}
		for _, e := range errs {
			sink.AddError(unit, e)
		}
	}
	return nil
}

// addReads says what each namespace listed: its labelled CronJobs and
// Jobs, and its FeatureFlag resources with feature_flags. A namespace
// that holds none says so; a cluster-wide listing counts each object at
// its own namespace, and says at the whole source when it found nothing.
func addReads(sink collectors.Sink, ns string, flags bool, cronJobs []batchv1.CronJob, jobs []batchv1.Job, featureFlags []unstructured.Unstructured) {
	var reads collectors.Reads
	kinds := []string{"cronjobs", "jobs"}
	if flags {
		kinds = append(kinds, "featureflags")
	}
	if ns != metav1.NamespaceAll || len(cronJobs)+len(jobs)+len(featureFlags) == 0 {
		for _, what := range kinds {
			reads.Add(model.JoinScope(ns), what, 0, 0)
		}
	}
	for _, cj := range cronJobs {
		reads.Add(model.JoinScope(cj.Namespace), "cronjobs", 1, 0)
	}
	for _, j := range jobs {
		reads.Add(model.JoinScope(j.Namespace), "jobs", 1, 0)
	}
	for i := range featureFlags {
		reads.Add(model.JoinScope(featureFlags[i].GetNamespace()), "featureflags", 1, 0)
	}
	reads.AddTo(sink)
}

func (c *Kubernetes) fail(err error) error {
	hint := ""
	if apierrors.IsForbidden(err) {
		hint = "; grant get/list on cronjobs and jobs (and featureflags with feature_flags) cluster-wide, or set namespaces to the ones this identity may read"
	}
	return fmt.Errorf("kubernetes %s: list all namespaces: %w%s", c.authority(), err, hint)
}

// listNamespace lists the CronJobs and Jobs that carry any label key,
// one list call per key, deduplicated by namespace and name.
func (c *Kubernetes) listNamespace(ctx context.Context, ns string) ([]batchv1.CronJob, []batchv1.Job, error) {
	seenCJ, seenJob := map[string]bool{}, map[string]bool{}
	var cronJobs []batchv1.CronJob
	var jobs []batchv1.Job
	for _, key := range c.LabelKeys {
		selector := key
		if c.LabelSelector != "" {
			selector += "," + c.LabelSelector
		}
		cjs, err := listAll(ctx, c, func(ctx context.Context, opts metav1.ListOptions) ([]batchv1.CronJob, metav1.ListMeta, error) {
			l, err := c.Client.BatchV1().CronJobs(ns).List(ctx, opts)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return l.Items, l.ListMeta, nil
		}, selector)
		if err != nil {
			return nil, nil, fmt.Errorf("list cronjobs: %w", err)
		}
		for i := range cjs {
			if err := inNamespace(ns, &cjs[i].ObjectMeta); err != nil {
				return nil, nil, fmt.Errorf("list cronjobs: %w", err)
			}
			cj := cjs[i]
			if key := cj.Namespace + "/" + cj.Name; !seenCJ[key] {
				seenCJ[key] = true
				cronJobs = append(cronJobs, cj)
			}
		}
		js, err := listAll(ctx, c, func(ctx context.Context, opts metav1.ListOptions) ([]batchv1.Job, metav1.ListMeta, error) {
			l, err := c.Client.BatchV1().Jobs(ns).List(ctx, opts)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return l.Items, l.ListMeta, nil
		}, selector)
		if err != nil {
			return nil, nil, fmt.Errorf("list jobs: %w", err)
		}
		for i := range js {
			if err := inNamespace(ns, &js[i].ObjectMeta); err != nil {
				return nil, nil, fmt.Errorf("list jobs: %w", err)
			}
			j := js[i]
			if key := j.Namespace + "/" + j.Name; !seenJob[key] {
				seenJob[key] = true
				jobs = append(jobs, j)
			}
		}
	}
	return cronJobs, jobs, nil
}

// inNamespace ties an object of a namespaced listing to that namespace,
// the unit its artifact is reported under. An API server answers only
// with objects of the namespace asked for; an answer that holds another
// namespace's object is not trusted.
func inNamespace(ns string, m *metav1.ObjectMeta) error {
	switch {
	case ns == metav1.NamespaceAll && m.Namespace == "":
		return fmt.Errorf("the answer holds %q without a namespace", m.Name)
	case ns == metav1.NamespaceAll:
	case m.Namespace == "":
		m.Namespace = ns
	case m.Namespace != ns:
		return fmt.Errorf("the answer for namespace %s holds %q of namespace %s", ns, m.Name, m.Namespace)
	}
	return nil
}

// listAll pages a list call with limit and continue tokens, retrying
// throttled and failed answers under the policy. Each call has the
// collector's timeout; the walk stops with an error after maxPages pages
// or when the server hands back a continue token it already gave.
func listAll[T any](ctx context.Context, c *Kubernetes, list func(context.Context, metav1.ListOptions) ([]T, metav1.ListMeta, error), selector string) ([]T, error) {
	opts := metav1.ListOptions{LabelSelector: selector, Limit: c.PageSize}
	seen := map[string]bool{}
	var all []T
	for page := 1; ; page++ {
		if page > maxPages {
			return all, fmt.Errorf("more than %d pages of %d: stopped (the server keeps handing out continue tokens)", maxPages, c.PageSize)
		}
		var items []T
		var lm metav1.ListMeta
		err := remote.Retry(ctx, c.Retry, func() error {
			callCtx, cancel := context.WithTimeout(ctx, c.Timeout)
			defer cancel()
			var err error
			items, lm, err = list(callCtx, opts)
			return kubeclient.Retryable(err)
		})
		if err != nil {
			return all, err
		}
		if c.strict && lm.ResourceVersion == "" {
			return all, fmt.Errorf("page %d: the answer is not a Kubernetes list (no metadata.resourceVersion)", page)
		}
		all = append(all, items...)
		if lm.Continue == "" {
			return all, nil
		}
		if seen[lm.Continue] {
			return all, fmt.Errorf("page %d: the server handed back a continue token it already gave: stopped", page)
		}
		seen[lm.Continue] = true
		opts.Continue = lm.Continue
	}
}
