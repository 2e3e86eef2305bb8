package kubernetes

import (
	"strconv"
	"time"

	"github.com/bfaudit/bfaudit/model"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kubernetes-specific attribute keys, next to the well-known model.Attr* ones.
const (
	AttrSuspend           = "suspend"
	AttrConcurrencyPolicy = "concurrency_policy"
	AttrTimeZone          = "time_zone"
	AttrLastSuccessful    = "last_successful_time"
	AttrActiveJobs        = "active_jobs"
	AttrTTLSeconds        = "ttl_seconds_after_finished"
	AttrTTLMissing        = "ttl_missing"
	AttrFinished          = model.AttrFinished
	AttrStartTime         = "start_time"
	AttrCompletionTime    = "completion_time"
	AttrSucceeded         = "succeeded"
	AttrFailed            = "failed"
	AttrCronJob           = "cronjob"
)

// kueueQueueLabel names the Kueue LocalQueue a Job is admitted through:
// the closest thing Kubernetes has to a dedicated backfill pool.
const kueueQueueLabel = "kueue.x-k8s.io/queue-name"

// base fills what CronJob and Job artifacts share: identity, labels,
// owner and the backfill id from the first label key present.
func (c *Kubernetes) base(kind model.Kind, resource string, meta metav1.ObjectMeta) model.Artifact {
	a := model.Artifact{
		Kind:      kind,
		Scope:     model.JoinScope(meta.Namespace),
		URI:       c.uri(meta.Namespace, resource, meta.Name),
		Name:      meta.Name,
		Labels:    model.TagsOf(meta.Labels),
		CreatedAt: model.At(meta.CreationTimestamp.Time.UTC()),
	}
	for _, k := range c.LabelKeys {
		if v := meta.Labels[k]; v != "" {
			a.BackfillID, a.Correlation = v, "label"
			break
		}
	}
	if a.BackfillID == "" {
		if id, how, ok := c.env.Selector.Match(a.URI, meta.Name, meta.Labels); ok {
			a.BackfillID, a.Correlation = id, how
		}
	}
	if c.OwnerLabel != "" {
		if o := meta.Labels[c.OwnerLabel]; o != "" {
			a.Owner = o
		} else {
			a.Owner = meta.Annotations[c.OwnerLabel]
		}
	}
	if q := meta.Labels[kueueQueueLabel]; q != "" {
		a.SetAttr(model.AttrPool, q)
	}
	keepFromAnnotations(&a, meta.Annotations)
	return a
}

// cronJobArtifact: a suspended CronJob is a paused scheduler job.
func (c *Kubernetes) cronJobArtifact(cj batchv1.CronJob) model.Artifact {
	a := c.base(model.KindSchedulerJob, "cronjobs", cj.ObjectMeta)
	suspended := cj.Spec.Suspend != nil && *cj.Spec.Suspend
	a.State = model.StateEnabled
	if suspended {
		a.State = model.StatePaused
	}
	a.SetAttr(model.AttrSchedule, cj.Spec.Schedule)
	a.SetAttr(AttrSuspend, strconv.FormatBool(suspended))
	policy := cj.Spec.ConcurrencyPolicy
	if policy == "" {
		policy = batchv1.AllowConcurrent
	}
	a.SetAttr(AttrConcurrencyPolicy, string(policy))
	if policy == batchv1.ForbidConcurrent || policy == batchv1.ReplaceConcurrent {
		a.SetAttr(model.AttrMaxActiveRuns, "1")
	}
	if cj.Spec.TimeZone != nil {
		a.SetAttr(AttrTimeZone, *cj.Spec.TimeZone)
	}
	if t := cj.Status.LastScheduleTime; t != nil {
		a.LastUsedAt = model.At(t.Time.UTC())
	}
	setTime(&a, AttrLastSuccessful, cj.Status.LastSuccessfulTime)
	a.SetAttr(AttrActiveJobs, strconv.Itoa(len(cj.Status.Active)))
	if pool := a.Attr(model.AttrPool); pool == "" {
		if q := cj.Spec.JobTemplate.Labels[kueueQueueLabel]; q != "" {
			a.SetAttr(model.AttrPool, q)
		}
	}
	return a
}

// jobArtifact: a Job is one run. Without ttlSecondsAfterFinished it stays
// after finishing; with one, it expires completion + ttl.
func (c *Kubernetes) jobArtifact(j batchv1.Job) model.Artifact {
	a := c.base(model.KindJobRun, "jobs", j.ObjectMeta)
	state, finishedAt := jobState(j)
	a.SetAttr(model.AttrRunType, "backfill")
	a.SetAttr(model.AttrRunState, state)
	finished := state == "success" || state == "failed"
	a.SetAttr(AttrFinished, strconv.FormatBool(finished))
	if !finished {
		a.State = model.StateActive
	}
	if ttl := j.Spec.TTLSecondsAfterFinished; ttl != nil {
		a.SetAttr(AttrTTLSeconds, strconv.Itoa(int(*ttl)))
		a.SetAttr(AttrTTLMissing, "false")
		if !finishedAt.IsZero() {
			a.ExpiresAt = model.At(finishedAt.Add(time.Duration(*ttl) * time.Second).UTC())
		}
	} else {
		a.SetAttr(AttrTTLMissing, "true")
	}
	if !finishedAt.IsZero() {
		a.ModifiedAt = model.At(finishedAt.UTC())
		a.SetAttr(AttrCompletionTime, finishedAt.UTC().Format(time.RFC3339))
	}
	setTime(&a, AttrStartTime, j.Status.StartTime)
	if j.Status.StartTime != nil {
		a.LastUsedAt = model.At(j.Status.StartTime.Time.UTC())
	}
	if p := j.Spec.Parallelism; p != nil {
		a.SetAttr(model.AttrMaxActiveRuns, strconv.Itoa(int(*p)))
	}
	a.SetAttr(AttrSucceeded, strconv.Itoa(int(j.Status.Succeeded)))
	a.SetAttr(AttrFailed, strconv.Itoa(int(j.Status.Failed)))
	for _, ref := range j.OwnerReferences {
		if ref.Kind == "CronJob" {
			a.SetAttr(AttrCronJob, ref.Name)
		}
	}
	return a
}

// jobState reads a Job's run state from its conditions: success or failed
// when finished (with the time it finished), running once a pod started,
// queued before that or while suspended.
func jobState(j batchv1.Job) (string, time.Time) {
	for _, cond := range j.Status.Conditions {
		if cond.Status != corev1.ConditionTrue {
			continue
		}
		switch cond.Type {
		case batchv1.JobComplete:
			t := cond.LastTransitionTime.Time
			if j.Status.CompletionTime != nil {
				t = j.Status.CompletionTime.Time
			}
			return "success", t
		case batchv1.JobFailed:
			return "failed", cond.LastTransitionTime.Time
		}
	}
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		return "queued", time.Time{}
	}
	if j.Status.StartTime != nil || j.Status.Active > 0 {
		return "running", time.Time{}
	}
	return "queued", time.Time{}
}

func setTime(a *model.Artifact, key string, t *metav1.Time) {
	if t != nil && !t.IsZero() {
		a.SetAttr(key, t.UTC().Format(time.RFC3339))
	}
}
