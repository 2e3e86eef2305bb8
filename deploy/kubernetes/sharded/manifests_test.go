// Package sharded_test checks the sharded kustomizations: every manifest
// decodes strictly into client-go's types, the Indexed Job's size agrees
// with its --shard, and the audit job reads where the shards write.
package sharded_test

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/bfaudit/bfaudit/collectors"
)

// kustomization holds the fields these kustomizations use; decoding
// strictly makes a misspelt or new field fail here.
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

// load decodes dir's kustomization and its resources strictly: Jobs and
// PersistentVolumeClaims only.
func load(t *testing.T, dir string) (jobs map[string]*batchv1.Job, pvcs map[string]*corev1.PersistentVolumeClaim) {
	t.Helper()
	var k kustomization
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, &k); err != nil {
		t.Fatalf("%s/kustomization.yaml: %v", dir, err)
	}
	if k.Kind != "Kustomization" || k.Namespace != "bfaudit" {
		t.Fatalf("%s/kustomization.yaml: kind %q namespace %q", dir, k.Kind, k.Namespace)
	}
	jobs, pvcs = map[string]*batchv1.Job{}, map[string]*corev1.PersistentVolumeClaim{}
	for _, r := range k.Resources {
		data, err := os.ReadFile(filepath.Join(dir, r))
		if err != nil {
			t.Fatalf("%s lists %s: %v", dir, r, err)
		}
		var tm struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(data, &tm); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		switch tm.APIVersion + " " + tm.Kind {
		case "batch/v1 Job":
			j := &batchv1.Job{}
			if err := yaml.UnmarshalStrict(data, j); err != nil {
				t.Fatalf("%s: %v", r, err)
			}
			jobs[j.Name] = j
		case "v1 PersistentVolumeClaim":
			p := &corev1.PersistentVolumeClaim{}
			if err := yaml.UnmarshalStrict(data, p); err != nil {
				t.Fatalf("%s: %v", r, err)
			}
			pvcs[p.Name] = p
		default:
			t.Fatalf("%s: unexpected kind %s %s", r, tm.APIVersion, tm.Kind)
		}
	}
	return jobs, pvcs
}

func flag(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// claimAt returns the claim mounted at dir.
func claimAt(t *testing.T, pod corev1.PodSpec, dir string) string {
	t.Helper()
	for _, m := range pod.Containers[0].VolumeMounts {
		if m.MountPath != dir {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.PersistentVolumeClaim != nil {
				return v.PersistentVolumeClaim.ClaimName
			}
		}
	}
	t.Fatalf("nothing mounted at %s", dir)
	return ""
}

func TestShardsWriteWhereTheAuditReads(t *testing.T) {
	jobs, pvcs := load(t, ".")
	audits, _ := load(t, "audit")
	collect, audit := jobs["bfaudit-collect"], audits["bfaudit-audit"]
	if collect == nil || audit == nil {
		t.Fatalf("jobs: %v %v", jobs, audits)
	}

	// One pod per shard, indexed from 0 as --shard expects.
	spec := collect.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Error("the collect Job is not Indexed")
	}
	c := spec.Template.Spec.Containers[0]
	shard := flag(c.Args, "shard")
	idx, n, ok := strings.Cut(shard, "/")
	if !ok || idx != "$(SHARD_INDEX)" {
		t.Fatalf("--shard=%q, want $(SHARD_INDEX)/N", shard)
	}
	count, err := strconv.Atoi(n)
	if err != nil {
		t.Fatalf("--shard=%q: %v", shard, err)
	}
	if _, err := collectors.ParseShard(strconv.Itoa(count-1) + "/" + n); err != nil {
		t.Errorf("--shard=%q: %v", shard, err)
	}
	if spec.Completions == nil || int(*spec.Completions) != count || spec.Parallelism == nil || int(*spec.Parallelism) != count {
		t.Errorf("completions %v, parallelism %v: want both %d, as --shard says", spec.Completions, spec.Parallelism, count)
	}
	var fromIndex bool
	for _, e := range c.Env {
		if e.Name == "SHARD_INDEX" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			fromIndex = true
		}
	}
	if !fromIndex {
		t.Error("SHARD_INDEX does not come from the Job's completion index")
	}
	if c.Args[0] != "collect" || c.Image != "bfaudit" {
		t.Errorf("collect container: args %v image %q", c.Args, c.Image)
	}

	// Each shard writes its own file on the shared volume, where the audit reads.
	out := flag(c.Args, "out")
	if !strings.Contains(out, "$(SHARD_INDEX)") || !strings.HasSuffix(out, ".json") {
		t.Errorf("--out=%q: each shard needs its own .json file", out)
	}
	a := audit.Spec.Template.Spec.Containers[0]
	from := flag(a.Args, "from")
	if a.Args[0] != "audit" || from != path.Dir(out) {
		t.Errorf("audit args %v: --from must be %s, where the shards write", a.Args, path.Dir(out))
	}
	claim := claimAt(t, spec.Template.Spec, path.Dir(out))
	if got := claimAt(t, audit.Spec.Template.Spec, from); got != claim {
		t.Errorf("the audit reads claim %s, the shards write %s", got, claim)
	}
	pvc := pvcs[claim]
	if pvc == nil {
		t.Fatalf("claim %s is not in the kustomization", claim)
	}
	if len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Errorf("claim %s: access %v; the shards run at once on any node: ReadWriteMany", claim, pvc.Spec.AccessModes)
	}
}
