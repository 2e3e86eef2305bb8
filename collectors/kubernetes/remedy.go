package kubernetes

import (
	"encoding/json"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("kubernetes", remedy.System{Examples: examples, Remove: kubernetesRemoval, Pause: kubernetesPause, Infer: inferKubernetes,
		Acts: remedy.ActsOn(func(k *Kubernetes) (remedy.Actor, error) {
			if k.Client == nil {
				return nil, nil
			}
			return newKubernetes(k), nil
		})})
}

// kind is the resource as kubectl names it.
func (o KubeObject) kind() string {
	switch o.Resource {
	case "cronjobs":
		return "cronjob"
	case "featureflags":
		return "featureflag"
	}
	return "job"
}

// FlagRemovalPatch is the JSON patch that removes one flag from a
// FeatureFlag resource: /spec/flagSpec/flags/<flag>, the name escaped as
// a JSON pointer token (~ as ~0, / as ~1).
func FlagRemovalPatch(flag string) string {
	token := strings.NewReplacer("~", "~0", "/", "~1").Replace(flag)
	b, _ := json.Marshal([]map[string]string{{"op": "remove", "path": "/spec/flagSpec/flags/" + token}})
	return string(b)
}

// featureFlagRemoval deletes the FeatureFlag resource when this flag is
// the only one it holds, or else removes the flag from it with a JSON
// patch, leaving the others. Without the count (a report's finding) it
// patches: that never removes another flag.
func featureFlagRemoval(r *remedy.Remedy, o KubeObject, a *model.Artifact) {
	if a.Attr(AttrResourceFlags) == "1" {
		r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteFlag, Step: model.StepNormalized, Resolves: true,
			Summary: "delete FeatureFlag " + o.Namespace + "/" + o.Name + ", which holds only flag " + o.Flag,
			Shell:   remedy.Command([]string{"kubectl", "delete", "featureflag"}, []string{remedy.Flag("--namespace", o.Namespace)}, o.Name)})
		return
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteFlag, Step: model.StepNormalized, Resolves: true,
		Summary: "remove flag " + o.Flag + " from FeatureFlag " + o.Namespace + "/" + o.Name,
		Shell: remedy.Command([]string{"kubectl", "patch", "featureflag"},
			[]string{remedy.Flag("--namespace", o.Namespace), "--type=json", remedy.Flag("--patch", FlagRemovalPatch(o.Flag))}, o.Name)})
}

// suspendPatch is the merge patch that suspends a CronJob.
const suspendPatch = `{"spec":{"suspend":true}}`

// kubernetesPause suspends the CronJob: like a DAG pause, at the first
// step (see airflowPause).
func kubernetesPause(r *remedy.Remedy, a *model.Artifact) {
	o, ok := ParseKubernetes(a)
	if !ok || o.Resource != "cronjobs" {
		return
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.PauseJob, Step: model.StepVerified, Resolves: true,
		Summary: "suspend CronJob " + o.Namespace + "/" + o.Name,
		Shell: remedy.Command([]string{"kubectl", "patch", "cronjob"},
			[]string{remedy.Flag("--namespace", o.Namespace), "--type=merge", remedy.Flag("--patch", suspendPatch)}, o.Name)})
}

func kubernetesRemoval(r *remedy.Remedy, a *model.Artifact) {
	o, ok := ParseKubernetes(a)
	if !ok {
		return
	}
	if o.Resource == "featureflags" {
		featureFlagRemoval(r, o, a)
		return
	}
	summary := "delete CronJob " + o.Namespace + "/" + o.Name
	if o.Resource == "jobs" {
		summary = "delete finished Job " + o.Namespace + "/" + o.Name + " and its pods"
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteJob, Step: model.StepRetired, Resolves: true, Summary: summary,
		Shell: remedy.Command([]string{"kubectl", "delete", o.kind()}, []string{remedy.Flag("--namespace", o.Namespace)}, o.Name)})
	if o.Resource == "jobs" {
		r.Notes = append(r.Notes, "give the next backfill Job spec.ttlSecondsAfterFinished so Kubernetes removes it by itself")
	}
}

// inferKubernetes: a scheduler job under jobs/ is a Job (a run), not a
// CronJob; what lies under featureflags/ is a flag.
func inferKubernetes(a *model.Artifact) {
	o, ok := splitURI(a.URI)
	switch {
	case !ok:
	case o.Resource == FeatureFlagGVR.Resource:
		a.Kind = model.KindFeatureFlag
		if o.Flag != "" {
			a.Name = o.Flag
		}
	case o.Resource == "jobs" && a.Kind == model.KindSchedulerJob:
		a.Kind = model.KindJobRun
	}
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"k8s-cronjob": {Kind: model.KindSchedulerJob, System: "kubernetes", Source: "cluster", State: model.StateEnabled,
		URI: "kubernetes://cluster/data-jobs/cronjobs/bf-1234-replay", Name: "bf-1234-replay"},
	"k8s-job": {Kind: model.KindJobRun, System: "kubernetes", Source: "cluster", State: model.StateEnabled,
		URI: "kubernetes://cluster/data-jobs/jobs/bf-1234-replay-29340", Name: "bf-1234-replay-29340", Attributes: model.Attrs(model.AttrFinished, "true")},
}
