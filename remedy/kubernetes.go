package remedy

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

func init() {
	registerSystem("kubernetes", commands{remove: kubernetesRemoval, pause: kubernetesPause, infer: inferKubernetes})
}

// KubeObject is a CronJob or Job, from the kubernetes collector's URI:
// kubernetes://<source>/<namespace>/cronjobs|jobs/<name>.
type KubeObject struct {
	Namespace, Resource, Name string
}

// ParseKubernetes reads a Kubernetes artifact.
func ParseKubernetes(a *model.Artifact) (KubeObject, bool) {
	segs, ok := segments(a.URI, "kubernetes")
	if !ok || len(segs) != 3 || segs[0] == "" || segs[2] == "" {
		return KubeObject{}, false
	}
	o := KubeObject{Namespace: segs[0], Resource: segs[1], Name: segs[2]}
	switch {
	case o.Resource == "cronjobs" && a.Kind == model.KindSchedulerJob:
	case o.Resource == "jobs" && (a.Kind == model.KindJobRun || a.Kind == model.KindSchedulerJob):
	default:
		return KubeObject{}, false
	}
	return o, true
}

// kind is the resource as kubectl names it.
func (o KubeObject) kind() string {
	if o.Resource == "cronjobs" {
		return "cronjob"
	}
	return "job"
}

// suspendPatch is the merge patch that suspends a CronJob.
const suspendPatch = `{"spec":{"suspend":true}}`

// kubernetesPause suspends the CronJob: like a DAG pause, at the first
// step (see airflowPause).
func kubernetesPause(r *Remedy, a *model.Artifact) {
	o, ok := ParseKubernetes(a)
	if !ok || o.Resource != "cronjobs" {
		return
	}
	r.Actions = append(r.Actions, Action{Name: PauseJob, Step: model.StepVerified, Resolves: true,
		Summary: "suspend CronJob " + o.Namespace + "/" + o.Name,
		Shell: command([]string{"kubectl", "patch", "cronjob"},
			[]string{Flag("--namespace", o.Namespace), "--type=merge", Flag("--patch", suspendPatch)}, o.Name)})
}

func kubernetesRemoval(r *Remedy, a *model.Artifact) {
	o, ok := ParseKubernetes(a)
	if !ok {
		return
	}
	summary := "delete CronJob " + o.Namespace + "/" + o.Name
	if o.Resource == "jobs" {
		summary = "delete finished Job " + o.Namespace + "/" + o.Name + " and its pods"
	}
	r.Actions = append(r.Actions, Action{Name: DeleteJob, Step: model.StepRetired, Resolves: true, Summary: summary,
		Shell: command([]string{"kubectl", "delete", o.kind()}, []string{Flag("--namespace", o.Namespace)}, o.Name)})
	if o.Resource == "jobs" {
		r.Notes = append(r.Notes, "give the next backfill Job spec.ttlSecondsAfterFinished so Kubernetes removes it by itself")
	}
}

// inferKubernetes: a scheduler job under jobs/ is a Job (a run), not a
// CronJob.
func inferKubernetes(a *model.Artifact) {
	if a.Kind == model.KindSchedulerJob && strings.Contains(a.URI, "/jobs/") {
		a.Kind = model.KindJobRun
	}
}
