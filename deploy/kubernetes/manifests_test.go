// Package kubernetes_test checks the kustomize base in this directory: every
// manifest decodes strictly into client-go's types, and the CronJob fits the
// config it mounts and the binary it runs.
package kubernetes_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	_ "github.com/bfaudit/bfaudit/collectors/all"
	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/internal/image"
)

// stopGrace is what the deadlines leave for the process to start, stop and
// for the kubelet to notice: Kubernetes must not act within it.
const stopGrace = 5 * time.Second

// kustomization holds the fields of kustomize's Kustomization this base uses;
// decoding it strictly makes a new or misspelt field fail here, where it can
// be checked, rather than be ignored.
type kustomization struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Labels     []struct {
		Pairs            map[string]string `json:"pairs"`
		IncludeSelectors bool              `json:"includeSelectors"`
	} `json:"labels"`
	Resources []string `json:"resources"`
	Images    []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
		Digest  string `json:"digest"`
	} `json:"images"`
}

// base is the decoded kustomize base.
type base struct {
	k        kustomization
	ns       *corev1.Namespace
	sa       *corev1.ServiceAccount
	role     *rbacv1.ClusterRole
	binding  *rbacv1.ClusterRoleBinding
	configs  map[string]*corev1.ConfigMap
	pvcs     map[string]*corev1.PersistentVolumeClaim
	cronJob  *batchv1.CronJob
	resource map[string]string // object "Kind/name" -> file
}

func decodeStrict(data []byte, into any) error {
	return yaml.UnmarshalStrict(data, into)
}

func load(t *testing.T) *base {
	t.Helper()
	b := &base{configs: map[string]*corev1.ConfigMap{}, pvcs: map[string]*corev1.PersistentVolumeClaim{}, resource: map[string]string{}}
	data, err := os.ReadFile("kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeStrict(data, &b.k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	if b.k.APIVersion != "kustomize.config.k8s.io/v1beta1" || b.k.Kind != "Kustomization" {
		t.Fatalf("kustomization.yaml: %s %s is not a Kustomization", b.k.APIVersion, b.k.Kind)
	}
	for _, r := range b.k.Resources {
		data, err := os.ReadFile(r)
		if err != nil {
			t.Fatalf("kustomization.yaml lists %s: %v", r, err)
		}
		if err := b.add(r, data); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
	}
	return b
}

// add decodes one manifest into the client-go type its kind names; a kind
// this base does not expect is an error, so a new one gets checks too.
func (b *base) add(file string, data []byte) error {
	if strings.Contains(string(data), "\n---") {
		return fmt.Errorf("one object per file, please")
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return err
	}
	var obj metav1.Object
	switch gvk := tm.APIVersion + " " + tm.Kind; gvk {
	case "v1 Namespace":
		b.ns = &corev1.Namespace{}
		obj = b.ns
	case "v1 ServiceAccount":
		b.sa = &corev1.ServiceAccount{}
		obj = b.sa
	case "rbac.authorization.k8s.io/v1 ClusterRole":
		b.role = &rbacv1.ClusterRole{}
		obj = b.role
	case "rbac.authorization.k8s.io/v1 ClusterRoleBinding":
		b.binding = &rbacv1.ClusterRoleBinding{}
		obj = b.binding
	case "v1 ConfigMap":
		cm := &corev1.ConfigMap{}
		obj = cm
		defer func() { b.configs[cm.Name] = cm }()
	case "v1 PersistentVolumeClaim":
		pvc := &corev1.PersistentVolumeClaim{}
		obj = pvc
		defer func() { b.pvcs[pvc.Name] = pvc }()
	case "batch/v1 CronJob":
		b.cronJob = &batchv1.CronJob{}
		obj = b.cronJob
	default:
		return fmt.Errorf("unexpected kind %q (a Secret never belongs here: tokens are created by hand, see docs/deploy.md)", gvk)
	}
	if err := decodeStrict(data, obj); err != nil {
		return err
	}
	if obj.GetName() == "" {
		return fmt.Errorf("%s without metadata.name", tm.Kind)
	}
	if obj.GetNamespace() != "" {
		return fmt.Errorf("%s sets metadata.namespace; the kustomization's namespace: sets it for all", obj.GetName())
	}
	key := tm.Kind + "/" + obj.GetName()
	if prev, ok := b.resource[key]; ok {
		return fmt.Errorf("%s is also in %s", key, prev)
	}
	b.resource[key] = file
	return nil
}

// The decoder this test relies on refuses what Kubernetes would drop with a
// warning: a misspelt field and a duplicated key.
func TestDecodingIsStrict(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown field":  "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: x}\nspec:\n  schedule: '* * * * *'\n  concurencyPolicy: Forbid\n",
		"duplicated key": "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: x}\nmetadata: {name: y}\n",
		"wrong type":     "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: x}\nspec: {startingDeadlineSeconds: soon}\n",
	} {
		b := &base{resource: map[string]string{}}
		if err := b.add(name, []byte(doc)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

func TestEveryManifestIsInTheBase(t *testing.T) {
	b := load(t)
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f != "kustomization.yaml" && !slices.Contains(b.k.Resources, f) {
			t.Errorf("%s is not listed in kustomization.yaml's resources, so it is neither applied nor checked", f)
		}
	}
	for _, want := range []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "PersistentVolumeClaim", "CronJob"} {
		found := false
		for key := range b.resource {
			found = found || strings.HasPrefix(key, want+"/")
		}
		if !found {
			t.Errorf("the base has no %s", want)
		}
	}
	if b.ns != nil && b.ns.Name != b.k.Namespace {
		t.Errorf("namespace.yaml creates %q but the kustomization puts everything in %q", b.ns.Name, b.k.Namespace)
	}
	if len(b.k.Images) != 1 || b.k.Images[0].Name != b.container(t).Image {
		t.Errorf("kustomization images: must rewrite the CronJob's image %q", b.container(t).Image)
	}
}

func (b *base) container(t *testing.T) *corev1.Container {
	t.Helper()
	if b.cronJob == nil {
		t.Fatal("no CronJob")
	}
	cs := b.cronJob.Spec.JobTemplate.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("the CronJob's pod has %d containers, want 1", len(cs))
	}
	return &cs[0]
}

func TestCronJobRunsOneAuditAtATime(t *testing.T) {
	b := load(t)
	cj := b.cronJob.Spec
	if cj.ConcurrencyPolicy != batchv1.ForbidConcurrent {
		t.Errorf("concurrencyPolicy %q: two audits at once would write one SQLite history", cj.ConcurrencyPolicy)
	}
	if cj.StartingDeadlineSeconds == nil || *cj.StartingDeadlineSeconds <= 0 {
		t.Error("startingDeadlineSeconds unset: a controller down for a day starts a stale run at once")
	}
	job := cj.JobTemplate.Spec
	if job.BackoffLimit == nil || *job.BackoffLimit > 2 {
		t.Error("backoffLimit unset or above 2")
	}
	if job.PodFailurePolicy == nil {
		t.Error("no podFailurePolicy: findings (exit 1) and a bad config (exit 2) would be retried")
	} else {
		stops := map[int32]bool{}
		for _, r := range job.PodFailurePolicy.Rules {
			if r.Action == batchv1.PodFailurePolicyActionFailJob && r.OnExitCodes != nil && r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn {
				for _, c := range r.OnExitCodes.Values {
					stops[c] = true
				}
			}
		}
		if !stops[1] || !stops[2] || stops[3] {
			t.Errorf("podFailurePolicy fails the Job on exit codes %v; want 1 and 2 (findings, config) and not 3 (a source that may answer next time)", stops)
		}
	}
	pod := job.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q: a podFailurePolicy needs Never", pod.RestartPolicy)
	}
	if b.sa == nil || pod.ServiceAccountName != b.sa.Name {
		t.Errorf("the pod runs as service account %q, not the base's", pod.ServiceAccountName)
	}
	sc := pod.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != image.UID {
		t.Errorf("the pod must run as non-root uid %d, the image's user", image.UID)
	}
	c := b.container(t)
	if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem ||
		c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
		t.Error("the container must have a read-only root filesystem and no privilege escalation")
	}
	if len(c.Command) != 0 {
		t.Errorf("command %q replaces the image's entrypoint %s", c.Command, image.BinaryPath)
	}
}

// flagValue returns --name's value from args (--name=v or --name v).
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
		if a == "--"+name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// mountFor returns the volume mount holding an absolute path.
func mountFor(c *corev1.Container, p string) (corev1.VolumeMount, bool) {
	var best corev1.VolumeMount
	for _, m := range c.VolumeMounts {
		if (p == m.MountPath || strings.HasPrefix(p, strings.TrimSuffix(m.MountPath, "/")+"/")) && len(m.MountPath) > len(best.MountPath) {
			best = m
		}
	}
	return best, best.MountPath != ""
}

func volume(pod corev1.PodSpec, name string) *corev1.Volume {
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == name {
			return &pod.Volumes[i]
		}
	}
	return nil
}

// loadMountedConfig finds the config file the CronJob passes to --config in
// the ConfigMap mounted there, and loads it as bfaudit would.
func loadMountedConfig(t *testing.T, b *base) (*config.Config, map[string]any) {
	t.Helper()
	c := b.container(t)
	if len(c.Args) == 0 || c.Args[0] != "audit" {
		t.Fatalf("args %q: want the audit command first", c.Args)
	}
	cfgPath, ok := flagValue(c.Args, "config")
	if !ok {
		t.Fatalf("args %q: no --config", c.Args)
	}
	m, ok := mountFor(c, cfgPath)
	if !ok {
		t.Fatalf("--config %s: no volume is mounted there", cfgPath)
	}
	v := volume(b.cronJob.Spec.JobTemplate.Spec.Template.Spec, m.Name)
	if v == nil || v.ConfigMap == nil {
		t.Fatalf("--config %s: mount %q is not a ConfigMap volume", cfgPath, m.Name)
	}
	if v.ConfigMap.Optional != nil && *v.ConfigMap.Optional {
		t.Errorf("the config's ConfigMap volume is optional: a missing config would start an audit of nothing")
	}
	cm := b.configs[v.ConfigMap.Name]
	if cm == nil {
		t.Fatalf("--config %s: ConfigMap %q is not in the base", cfgPath, v.ConfigMap.Name)
	}
	key := strings.TrimPrefix(cfgPath, strings.TrimSuffix(m.MountPath, "/")+"/")
	text, ok := cm.Data[key]
	if !ok {
		t.Fatalf("--config %s: ConfigMap %s has no key %q", cfgPath, cm.Name, key)
	}
	file := filepath.Join(t.TempDir(), key)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// In the pod the kubernetes source uses the service account; here a
	// kubeconfig stands in for it (Load builds the client, calls nothing).
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(standInKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	cfg, err := config.Load(config.NewViper(), file)
	if err != nil {
		t.Fatalf("the CronJob's config does not load: %v", err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(text), &raw); err != nil {
		t.Fatal(err)
	}
	return cfg, raw
}

const standInKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: stand-in}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`

// envNames walks the config for keys ending in _env: the variables bfaudit
// reads secrets from.
func envNames(v any, at string, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && strings.HasSuffix(k, "_env") {
				out[s] = at + k
			}
			envNames(val, at+k+".", out)
		}
	case []any:
		for i, val := range x {
			envNames(val, at+strconv.Itoa(i)+".", out)
		}
	}
}

func TestCronJobMatchesItsConfig(t *testing.T) {
	b := load(t)
	_, raw := loadMountedConfig(t, b)
	c := b.container(t)
	pod := b.cronJob.Spec.JobTemplate.Spec.Template.Spec

	// Secrets: every variable the config reads comes from a Secret, and
	// every Secret-fed variable is one the config reads.
	wanted := map[string]string{}
	envNames(raw, "", wanted)
	if len(wanted) == 0 {
		t.Fatal("the config names no token variable; the base is meant to show how tokens reach bfaudit")
	}
	given := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		given[e.Name] = e
	}
	for name, key := range wanted {
		e, ok := given[name]
		switch {
		case !ok:
			t.Errorf("the config's %s reads $%s, which the CronJob does not set", key, name)
		case e.Value != "":
			t.Errorf("$%s has a literal value in the manifest; tokens come from a Secret", name)
		case e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil:
			t.Errorf("$%s does not come from a Secret", name)
		}
	}
	for name, e := range given {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && wanted[name] == "" {
			t.Errorf("$%s is fed from Secret %s but nothing in the config reads it", name, e.ValueFrom.SecretKeyRef.Name)
		}
	}
	if len(c.EnvFrom) > 0 {
		t.Error("envFrom hides which variables the pod gets; list them in env")
	}

	// Paths: what bfaudit reads is on a mounted volume, what it writes on a
	// writable one backed by the claim in the base.
	type use struct {
		path  string
		write bool
	}
	var paths []use
	hist, _ := raw["history"].(map[string]any)
	if p, _ := hist["path"].(string); p != "" {
		paths = append(paths, use{path.Dir(p), true})
	} else if hist["driver"] != "postgres" {
		t.Error("history: the SQLite path must be set: its default lies next to the config, on a read-only ConfigMap")
	}
	rep, _ := raw["report"].(map[string]any)
	outs, _ := rep["outputs"].(map[string]any)
	for _, p := range outs {
		paths = append(paths, use{path.Dir(p.(string)), true})
	}
	srcs, _ := raw["sources"].([]any)
	for _, s := range srcs {
		m, _ := s.(map[string]any)
		for _, k := range []string{"plans", "records", "files"} {
			list, _ := m[k].([]any)
			for _, p := range list {
				paths = append(paths, use{p.(string), false})
			}
		}
	}
	if len(paths) == 0 {
		t.Fatal("the config names no path to check")
	}
	for _, u := range paths {
		if !path.IsAbs(u.path) {
			t.Errorf("%s: relative paths resolve next to the config, on a read-only ConfigMap; use an absolute path", u.path)
			continue
		}
		m, ok := mountFor(c, u.path)
		if !ok {
			t.Errorf("%s: no volume is mounted there; the root filesystem is read-only", u.path)
			continue
		}
		if !u.write {
			continue
		}
		v := volume(pod, m.Name)
		switch {
		case m.ReadOnly:
			t.Errorf("%s: bfaudit writes there, but mount %s is read-only", u.path, m.Name)
		case v == nil || v.PersistentVolumeClaim == nil:
			t.Errorf("%s: bfaudit keeps history and reports there, but mount %s is not a PersistentVolumeClaim", u.path, m.Name)
		case b.pvcs[v.PersistentVolumeClaim.ClaimName] == nil:
			t.Errorf("%s: claim %q is not in the base", u.path, v.PersistentVolumeClaim.ClaimName)
		}
	}
	for _, m := range c.VolumeMounts {
		if volume(pod, m.Name) == nil {
			t.Errorf("mount %s names no volume", m.Name)
		}
	}
}

// finishBudget reads cmd/bfaudit's finishBudget, what the run gets after its
// deadline to record history and write reports, so this test follows it.
func finishBudget(t *testing.T) time.Duration {
	t.Helper()
	src, err := os.ReadFile("../../cmd/bfaudit/audit.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?:const|var) finishBudget = (\d+) \* time\.Second`).FindSubmatch(src)
	if m == nil {
		t.Fatal("cmd/bfaudit/audit.go no longer declares `const finishBudget = N * time.Second`; update this test to read it")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return time.Duration(n) * time.Second
}

// bfaudit ends itself before Kubernetes ends it: the run's deadline plus the
// finish budget fits in activeDeadlineSeconds with room to stop, and a
// SIGTERM leaves the finish budget before the SIGKILL.
func TestDeadlinesLetBfauditEndItself(t *testing.T) {
	b := load(t)
	cfg, _ := loadMountedConfig(t, b)
	deadline := cfg.Deadline
	if s, ok := flagValue(b.container(t).Args, "deadline"); ok {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("--deadline %q: %v", s, err)
		}
		deadline = d
	}
	finish := finishBudget(t)
	job := b.cronJob.Spec.JobTemplate.Spec
	if job.ActiveDeadlineSeconds == nil {
		t.Fatal("activeDeadlineSeconds unset: a hung run holds the Forbid lock forever")
	}
	active := time.Duration(*job.ActiveDeadlineSeconds) * time.Second
	if need := deadline + finish + stopGrace; active <= need {
		t.Errorf("activeDeadlineSeconds %s <= --deadline %s + finish %s + stop %s: Kubernetes would kill a run still writing its reports", active, deadline, finish, stopGrace)
	}
	grace := job.Template.Spec.TerminationGracePeriodSeconds
	if grace == nil {
		t.Fatal("terminationGracePeriodSeconds unset")
	}
	if g := time.Duration(*grace) * time.Second; g <= finish+stopGrace {
		t.Errorf("terminationGracePeriodSeconds %s <= finish %s + stop %s: after a SIGTERM bfaudit could not write its reports", g, finish, stopGrace)
	}
	// The schedule must leave the run time to end before the next one, or
	// Forbid skips runs.
	if !strings.HasPrefix(b.cronJob.Spec.Schedule, "0 ") {
		t.Errorf("schedule %q: expected at most one run an hour", b.cronJob.Spec.Schedule)
	}
	if active > time.Hour {
		t.Errorf("activeDeadlineSeconds %s is longer than the schedule's hour", active)
	}
}

func TestRBACIsReadOnly(t *testing.T) {
	b := load(t)
	if b.role == nil || b.binding == nil {
		t.Fatal("no ClusterRole or ClusterRoleBinding")
	}
	if len(b.role.Rules) != 1 {
		t.Fatalf("%d rules, want exactly one (batch cronjobs and jobs)", len(b.role.Rules))
	}
	r := b.role.Rules[0]
	if !slices.Equal(r.APIGroups, []string{"batch"}) || len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
		t.Errorf("rule %+v: want apiGroups [batch] only", r)
	}
	for _, res := range r.Resources {
		if res != "cronjobs" && res != "jobs" {
			t.Errorf("resource %q: the collector reads only cronjobs and jobs", res)
		}
	}
	for _, v := range r.Verbs {
		if v != "get" && v != "list" {
			t.Errorf("verb %q: the collector only gets and lists", v)
		}
	}
	if len(r.Verbs) != 2 || len(r.Resources) != 2 {
		t.Errorf("rule %+v: want get and list on cronjobs and jobs", r)
	}
	if b.binding.RoleRef.Kind != "ClusterRole" || b.binding.RoleRef.Name != b.role.Name {
		t.Errorf("the binding refers to %s %s", b.binding.RoleRef.Kind, b.binding.RoleRef.Name)
	}
	if len(b.binding.Subjects) != 1 || b.binding.Subjects[0].Kind != "ServiceAccount" ||
		b.binding.Subjects[0].Name != b.sa.Name || b.binding.Subjects[0].Namespace != b.k.Namespace {
		t.Errorf("the binding's subjects %+v: want only service account %s/%s", b.binding.Subjects, b.k.Namespace, b.sa.Name)
	}
}

func TestServiceAccountForWorkloadIdentity(t *testing.T) {
	b := load(t)
	gsa := b.sa.Annotations["iam.gke.io/gcp-service-account"]
	if !strings.HasSuffix(gsa, ".iam.gserviceaccount.com") {
		t.Errorf("service account annotation iam.gke.io/gcp-service-account = %q, want a Google service account", gsa)
	}
	// IRSA: the SDK's web identity provider reads the role the EKS
	// webhook injects from this annotation.
	if role := b.sa.Annotations["eks.amazonaws.com/role-arn"]; !regexp.MustCompile(`^arn:aws:iam::[A-Z0-9_]+:role/[\w+=,.@-]+$`).MatchString(role) {
		t.Errorf("service account annotation eks.amazonaws.com/role-arn = %q, want an IAM role ARN", role)
	}
	if b.sa.AutomountServiceAccountToken != nil && !*b.sa.AutomountServiceAccountToken {
		t.Error("the kubernetes collector needs the service account token mounted")
	}
}
