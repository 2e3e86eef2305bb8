package kubernetes

import (
	"context"
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	k8s "k8s.io/client-go/kubernetes"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// kubeSystem acts on CronJobs and Jobs with the collector's client-go
// clientset (its kubeconfig and context).
type kubeSystem struct {
	client k8s.Interface
}

func newKubernetes(k *Kubernetes) *kubeSystem { return &kubeSystem{client: k.Client} }

func (s *kubeSystem) object(a *model.Artifact) (KubeObject, error) {
	o, ok := ParseKubernetes(a)
	if !ok {
		return o, fmt.Errorf("kubernetes: %s is not an artifact bfaudit can act on", a.URI)
	}
	if o.Resource != "cronjobs" && o.Resource != "jobs" {
		// A FeatureFlag's flag: its remedy is printed, not applied.
		return o, fmt.Errorf("kubernetes: bfaudit does not act on %s yet: run the printed kubectl command by hand", o.Resource)
	}
	return o, nil
}

func (s *kubeSystem) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	o, err := s.object(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	if o.Resource == "cronjobs" {
		cj, err := s.client.BatchV1().CronJobs(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return remedy.Observed{}, nil
		}
		if err != nil {
			return remedy.Observed{}, fmt.Errorf("kubernetes: get cronjob %s/%s: %w", o.Namespace, o.Name, err)
		}
		suspended := cj.Spec.Suspend != nil && *cj.Spec.Suspend
		return remedy.Observed{Found: true, State: map[string]string{AttrSuspend: strconv.FormatBool(suspended),
			"schedule": cj.Spec.Schedule, "uid": string(cj.UID)}}, nil
	}
	job, err := s.client.BatchV1().Jobs(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return remedy.Observed{}, nil
	}
	if err != nil {
		return remedy.Observed{}, fmt.Errorf("kubernetes: get job %s/%s: %w", o.Namespace, o.Name, err)
	}
	finished := false
	for _, c := range job.Status.Conditions {
		if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
			finished = true
		}
	}
	return remedy.Observed{Found: true, State: map[string]string{model.AttrFinished: strconv.FormatBool(finished), "uid": string(job.UID)}}, nil
}

// Expected: a CronJob suspended or not as it was, on the same schedule; a
// Job still finished.
func (s *kubeSystem) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	if o, ok := ParseKubernetes(a); ok && o.Resource == "cronjobs" {
		out := remedy.Saw(a, model.AttrSchedule)
		out[AttrSuspend] = strconv.FormatBool(a.State == model.StatePaused)
		return out
	}
	return remedy.Saw(a, model.AttrFinished)
}

// Act suspends a CronJob (a merge patch of spec.suspend), or deletes a
// CronJob or Job with its children (background propagation). The delete
// is preconditioned on the uid read, so an object recreated under the
// same name in between is left alone.
func (s *kubeSystem) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	o, err := s.object(a)
	if err != nil {
		return err
	}
	batch := s.client.BatchV1()
	switch {
	case act.Name == remedy.PauseJob && o.Resource == "cronjobs":
		_, err = batch.CronJobs(o.Namespace).Patch(ctx, o.Name, types.MergePatchType, []byte(`{"spec":{"suspend":true}}`), metav1.PatchOptions{})
	case act.Name == remedy.DeleteJob:
		obs, rerr := s.Read(ctx, a, act)
		if rerr != nil || !obs.Found {
			return rerr
		}
		uid := types.UID(obs.State["uid"])
		policy := metav1.DeletePropagationBackground
		opts := metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &uid}}
		if o.Resource == "cronjobs" {
			err = batch.CronJobs(o.Namespace).Delete(ctx, o.Name, opts)
		} else {
			err = batch.Jobs(o.Namespace).Delete(ctx, o.Name, opts)
		}
		if apierrors.IsNotFound(err) {
			return nil
		}
	default:
		return fmt.Errorf("kubernetes: no %s for %s", act.Name, o.Resource)
	}
	if err != nil {
		return fmt.Errorf("kubernetes: %s %s/%s: %w", act.Name, o.Namespace, o.Name, err)
	}
	return nil
}
