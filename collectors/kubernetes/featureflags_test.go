package kubernetes

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/kubeclient"
	"github.com/bfaudit/bfaudit/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	discoveryfake "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"
)

// featureFlag builds a FeatureFlag resource from its YAML, as kubectl
// would apply it.
func featureFlag(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		t.Fatal(err)
	}
	return u
}

const (
	// Tied as a whole by its label: both flags are the backfill's.
	replayFlags = `
apiVersion: core.openfeature.dev/v1beta1
kind: FeatureFlag
metadata:
  name: replay-flags
  namespace: batch
  labels: {backfill-id: BF-1234}
  annotations: {owner: payments@example.com}
spec:
  flagSpec:
    flags:
      replay-mode:
        state: ENABLED
        variants: {"on": true, "off": false}
        defaultVariant: "on"
        metadata: {sideEffectGuard: true, replayVariant: "on"}
`
	// Untied as a whole: each flag by its name or metadata, or not at all.
	shopFlags = `
apiVersion: core.openfeature.dev/v1beta1
kind: FeatureFlag
metadata:
  name: shop-flags
  namespace: batch
spec:
  flagSpec:
    flags:
      bf-77-dual-write:
        state: ENABLED
        variants: {"on": "on", "off": "off"}
        defaultVariant: "off"
      suppress-emails:
        state: ENABLED
        variants: {"yes": 1, "no": 0}
        defaultVariant: "yes"
        metadata: {backfill_id: bf-3100}
      new-checkout:
        state: ENABLED
        variants: {"on": true, "off": false}
        defaultVariant: "on"
`
	brokenFlags = `
apiVersion: core.openfeature.dev/v1beta1
kind: FeatureFlag
metadata:
  name: broken
  namespace: batch
  labels: {backfill-id: BF-9}
spec:
  flagSpec:
    flags:
      bf-9-a:
        state: "on"
        variants: {"on": true}
`
)

// fakeCluster serves batch/v1 and, when crd is set, the OpenFeature
// Operator's core.openfeature.dev/v1beta1 with its objects.
func fakeCluster(crd bool, objs ...runtime.Object) (*dynamicfake.FakeDynamicClient, *discoveryfake.FakeDiscovery) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{FeatureFlagGVR: "FeatureFlagList"}, objs...)
	disc := &discoveryfake.FakeDiscovery{Fake: &k8stesting.Fake{}}
	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "batch/v1", APIResources: []metav1.APIResource{
		{Name: "cronjobs", Namespaced: true, Kind: "CronJob", Verbs: []string{"get", "list"}},
		{Name: "jobs", Namespaced: true, Kind: "Job", Verbs: []string{"get", "list"}},
	}}}
	if crd {
		disc.Resources = append(disc.Resources, &metav1.APIResourceList{GroupVersion: "core.openfeature.dev/v1beta1", APIResources: []metav1.APIResource{
			{Name: "featureflags", Namespaced: true, Kind: "FeatureFlag", Verbs: []string{"get", "list"}},
			{Name: "featureflagsources", Namespaced: true, Kind: "FeatureFlagSource", Verbs: []string{"get", "list"}},
		}})
	}
	return dyn, disc
}

func flagCollector(t *testing.T, crd bool, namespaces []string, objs ...runtime.Object) (*Kubernetes, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	dyn, disc := fakeCluster(crd, objs...)
	c, _ := newCollector(t, fake.NewClientset(estate()...), func(c *Kubernetes) {
		c.FeatureFlags, c.Dynamic, c.Discovery, c.Namespaces = true, dyn, disc, namespaces
	})
	return c, dyn
}

func TestFeatureFlagsTiedByResourceOrFlag(t *testing.T) {
	c, _ := flagCollector(t, true, []string{"batch"}, featureFlag(t, replayFlags), featureFlag(t, shopFlags), featureFlag(t, brokenFlags))
	sink := collect(t, c)
	flags := map[string]model.Artifact{}
	for _, a := range sink.Artifacts {
		if a.Kind == model.KindFeatureFlag {
			flags[a.Name] = a
		}
	}
	type want struct {
		id, how, uri, scope string
		state               model.State
		count               string
	}
	for name, w := range map[string]want{
		"replay-mode":      {"BF-1234", "label", "kubernetes://k8s-test/batch/featureflags/replay-flags#replay-mode", "batch/replay-flags", model.StateEnabled, "1"},
		"bf-77-dual-write": {"bf-77", "name", "kubernetes://k8s-test/batch/featureflags/shop-flags#bf-77-dual-write", "batch/shop-flags", model.StateDisabled, "3"},
		"suppress-emails":  {"bf-3100", "label", "", "batch/shop-flags", model.StateEnabled, "3"},
	} {
		a, ok := flags[name]
		if !ok {
			t.Errorf("%s: not reported", name)
			continue
		}
		if a.System != "kubernetes" || a.BackfillID != w.id || a.Correlation != w.how || a.Scope != w.scope || a.State != w.state ||
			(w.uri != "" && a.URI != w.uri) || a.Attr(AttrResourceFlags) != w.count {
			t.Errorf("%s: %+v; want %+v", name, a, w)
		}
	}
	if _, ok := flags["new-checkout"]; ok {
		t.Error("new-checkout names no backfill, nor does its resource, but was reported")
	}
	r := flags["replay-mode"]
	if r.Attr(model.AttrGuard) != "true" || r.Attr(model.AttrReplayPosition) != "on" || r.Attr(model.AttrPosition) != "on" ||
		r.Attr("variants") != "off,on" || r.Owner != "payments@example.com" {
		t.Errorf("replay-mode: owner %q attributes %v", r.Owner, r.Attributes)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "batch/broken" ||
		sink.Errors[0].Error != `kubernetes k8s-test: FeatureFlag batch/broken: spec.flagSpec: flags.bf-9-a.state: "on"; expected ENABLED or DISABLED` {
		t.Errorf("errors: %+v", sink.Errors)
	}
	if len(c.Notes()) != 0 {
		t.Errorf("notes: %v", c.Notes())
	}
	// CronJobs and Jobs are read as before.
	if n := len(sink.Artifacts) - len(flags); n != 5 {
		t.Errorf("%d CronJobs and Jobs in batch, want 5", n)
	}
}

// A cluster without the CRD holds no FeatureFlag: a note, not an error,
// and no FeatureFlag listing.
func TestNoFeatureFlagCRDIsANote(t *testing.T) {
	c, dyn := flagCollector(t, false, nil)
	sink := collect(t, c)
	if len(sink.Errors) > 0 || len(dyn.Actions()) > 0 {
		t.Errorf("errors %+v, dynamic calls %v", sink.Errors, dyn.Actions())
	}
	if notes := c.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "does not serve featureflags.core.openfeature.dev") {
		t.Errorf("notes: %v", notes)
	}
	if len(sink.Artifacts) == 0 {
		t.Error("CronJobs and Jobs were not read")
	}
}

// A namespace whose FeatureFlags cannot be listed is an error at that
// namespace, and nothing of it is reported; a failing discovery fails
// the source.
func TestFeatureFlagListingFailures(t *testing.T) {
	c, dyn := flagCollector(t, true, []string{"batch", "other"}, featureFlag(t, replayFlags))
	dyn.PrependReactor("list", "featureflags", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() != "batch" {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(FeatureFlagGVR.GroupResource(), "", errForbidden("batch"))
	})
	sink := collect(t, c)
	var scopes []string
	for _, e := range sink.Errors {
		scopes = append(scopes, e.Scope)
	}
	for _, a := range sink.Artifacts {
		if a.Scope == "batch" || strings.HasPrefix(a.Scope, "batch/") {
			t.Errorf("reported %s from a namespace that failed", a.URI)
		}
	}
	sort.Strings(scopes)
	if strings.Join(scopes, ",") != "batch" || !strings.Contains(sink.Errors[0].Error, "list featureflags") {
		t.Errorf("errors: %+v", sink.Errors)
	}

	c, _ = flagCollector(t, true, []string{"batch"})
	c.Discovery = failingDiscovery{c.Discovery}
	if err := collectors.Collect(context.Background(), c, collectors.NewTestSink()); err == nil || !strings.Contains(err.Error(), "discover core.openfeature.dev/v1beta1: connection refused") {
		t.Errorf("Collect with discovery failing: %v, want the source to fail", err)
	}
}

type failingDiscovery struct{ kubeclient.Discovery }

func (failingDiscovery) ServerGroupsWithContext(context.Context) (*metav1.APIGroupList, error) {
	return nil, errors.New("connection refused")
}

func TestFeatureFlagsNeedTheDynamicClient(t *testing.T) {
	c := New()
	c.Client = fake.NewClientset()
	c.FeatureFlags = true
	if err := c.Init(env("")); err == nil || !strings.Contains(err.Error(), "feature_flags") {
		t.Errorf("Init: %v", err)
	}
}

// Every unit says what it read: each namespace its labelled CronJobs and
// Jobs and its FeatureFlag resources (none is a count too), each resource
// its flags, new-checkout (no backfill) too; a flag not understood was
// read only in part.
func TestReadsOfEveryUnit(t *testing.T) {
	c, _ := flagCollector(t, true, []string{"batch", "other"}, featureFlag(t, replayFlags), featureFlag(t, shopFlags), featureFlag(t, brokenFlags))
	sink := collect(t, c)
	for _, r := range []struct {
		scope, what   string
		read, partial int
	}{
		{"batch", "cronjobs", 1, 0},
		{"batch", "jobs", 4, 0},
		{"batch", "featureflags", 3, 0},
		{"batch/replay-flags", "flags", 1, 0},
		{"batch/shop-flags", "flags", 3, 0},
		{"batch/broken", "flags", 1, 1},
		{"other", "cronjobs", 1, 0}, // bf-78-replay is labelled under a key not configured
		{"other", "jobs", 0, 0},
		{"other", "featureflags", 0, 0},
	} {
		if n, p := sink.Read(r.scope, r.what); n != r.read || p != r.partial {
			t.Errorf("%s: read %d %s (%d in part), want %d (%d in part)", r.scope, n, r.what, p, r.read, r.partial)
		}
	}
	has := map[string]bool{}
	for _, r := range sink.Reads {
		has[r.Scope+" "+r.What] = true
	}
	if !has["other jobs"] || !has["other featureflags"] {
		t.Errorf("a namespace that holds none does not say so: %+v", sink.Reads)
	}
}

// Listed cluster-wide, each object counts at its own namespace.
func TestReadsClusterWide(t *testing.T) {
	c, _ := newCollector(t, fake.NewClientset(estate()...), nil)
	sink := collect(t, c)
	if n, _ := sink.Read("batch", "jobs"); n != 4 {
		t.Errorf("batch: read %d jobs, want 4: %+v", n, sink.Reads)
	}
	if n, _ := sink.Read("secret", "cronjobs"); n != 1 {
		t.Errorf("secret: read %d cronjobs, want 1: %+v", n, sink.Reads)
	}
	for _, r := range sink.Reads {
		if r.Scope == "" {
			t.Errorf("a cluster-wide listing that found objects says it read at the whole source: %+v", r)
		}
	}
}
