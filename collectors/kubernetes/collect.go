package kubernetes

import (
	"context"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Collect lists labelled CronJobs and Jobs in every configured namespace
// (or cluster-wide). A namespace that fails, e.g. Forbidden, degrades that
// namespace only; a cluster-wide listing that fails fails the source.
func (c *Kubernetes) Collect(ctx context.Context, sink collectors.Sink) error {
	namespaces := c.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	for _, ns := range namespaces {
		cronJobs, jobs, err := c.listNamespace(ctx, ns)
		if err != nil {
			if ns == metav1.NamespaceAll {
				return c.fail(err)
			}
			sink.AddError(ns, fmt.Errorf("kubernetes %s: namespace %s: %w", c.authority(), ns, err))
			continue
		}
		for _, cj := range cronJobs {
			sink.AddArtifact(c.cronJobArtifact(cj))
		}
		for _, j := range jobs {
			sink.AddArtifact(c.jobArtifact(j))
		}
	}
	return nil
}

func (c *Kubernetes) fail(err error) error {
	hint := ""
	if apierrors.IsForbidden(err) {
		hint = "; grant get/list on cronjobs and jobs cluster-wide, or set namespaces to the ones this identity may read"
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
		cjs, err := listAll(ctx, c, func(opts metav1.ListOptions) ([]batchv1.CronJob, string, error) {
			l, err := c.Client.BatchV1().CronJobs(ns).List(ctx, opts)
			if err != nil {
				return nil, "", err
			}
			return l.Items, l.Continue, nil
		}, selector)
		if err != nil {
			return nil, nil, fmt.Errorf("list cronjobs: %w", err)
		}
		for _, cj := range cjs {
			if key := cj.Namespace + "/" + cj.Name; !seenCJ[key] {
				seenCJ[key] = true
				cronJobs = append(cronJobs, cj)
			}
		}
		js, err := listAll(ctx, c, func(opts metav1.ListOptions) ([]batchv1.Job, string, error) {
			l, err := c.Client.BatchV1().Jobs(ns).List(ctx, opts)
			if err != nil {
				return nil, "", err
			}
			return l.Items, l.Continue, nil
		}, selector)
		if err != nil {
			return nil, nil, fmt.Errorf("list jobs: %w", err)
		}
		for _, j := range js {
			if key := j.Namespace + "/" + j.Name; !seenJob[key] {
				seenJob[key] = true
				jobs = append(jobs, j)
			}
		}
	}
	return cronJobs, jobs, nil
}

// listAll pages a list call with limit and continue tokens, retrying
// throttled and failed answers under the policy.
func listAll[T any](ctx context.Context, c *Kubernetes, list func(metav1.ListOptions) ([]T, string, error), selector string) ([]T, error) {
	opts := metav1.ListOptions{LabelSelector: selector, Limit: c.PageSize}
	var all []T
	for {
		var items []T
		var cont string
		err := collectors.Retry(ctx, c.Retry, func() error {
			var err error
			items, cont, err = list(opts)
			return retryable(err)
		})
		if err != nil {
			return all, err
		}
		all = append(all, items...)
		if cont == "" {
			return all, nil
		}
		opts.Continue = cont
	}
}

// retryable marks the API server's throttling and transient failures for
// a retry, after the delay the server suggests.
func retryable(err error) error {
	if err == nil {
		return nil
	}
	if apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsServiceUnavailable(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) {
		var after time.Duration
		if s, ok := apierrors.SuggestsClientDelay(err); ok {
			after = time.Duration(s) * time.Second
		}
		return collectors.Retryable(err, after)
	}
	return err
}
