package kubernetes_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/kubernetes"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	discoveryfake "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestFaultMatrix fails each unit the collector reports under: the whole
// source (a cluster-wide listing refused) and one namespace (its listings
// refused while the other namespace still answers).
func TestFaultMatrix(t *testing.T) {
	faultmatrix.Run(t, "kubernetes", []faultmatrix.Unit{
		{Kind: "source", Scope: "", Setup: setup(nil, "")},
		{Kind: "namespace", Scope: "batch", Setup: setup([]string{"batch", "other"}, "batch")},
		{Kind: "featureflag", Scope: "batch/bf-7001-flags", Setup: setupFlags},
	})
}

// setupFlags reads FeatureFlag resources too: bf-7001-flags holds an
// enabled flag of BF-7001 (BF017 finds it live); breaking it writes a
// state the flagd shape refuses into its spec.
func setupFlags(t *testing.T) (collectors.Collector, func()) {
	flags := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.openfeature.dev/v1beta1", "kind": "FeatureFlag",
		"metadata": map[string]any{"name": "bf-7001-flags", "namespace": "batch", "labels": map[string]any{"backfill-id": "bf-7001"}},
		"spec": map[string]any{"flagSpec": map[string]any{"flags": map[string]any{
			"replay-mode": map[string]any{"state": "ENABLED", "variants": map[string]any{"on": true, "off": false}, "defaultVariant": "on"},
		}}},
	}}
	gvr := kubernetes.FeatureFlagGVR
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "FeatureFlagList"}, flags)
	disc := &discoveryfake.FakeDiscovery{Fake: &k8stesting.Fake{}}
	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "core.openfeature.dev/v1beta1",
		APIResources: []metav1.APIResource{{Name: "featureflags", Namespaced: true, Kind: "FeatureFlag"}}}}
	c := kubernetes.New()
	c.Client = fake.NewClientset(fixture()...)
	c.FeatureFlags, c.Dynamic, c.Discovery = true, dyn, disc
	c.Namespaces = []string{"batch", "other"}
	c.Retry = remote.RetryPolicy{Attempts: 1}
	if err := c.Init(matrixEnv); err != nil {
		t.Fatal(err)
	}
	return c, func() {
		broken := flags.DeepCopy()
		unstructured.SetNestedField(broken.Object, "on", "spec", "flagSpec", "flags", "replay-mode", "state")
		if _, err := dyn.Resource(gvr).Namespace("batch").Update(context.Background(), broken, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// setup builds a cluster holding BF-7001's replay CronJob (suspended) and
// a finished run left without a TTL, in namespace batch, and a collector
// reading namespaces (all when nil). breakUnit makes every list call for
// namespace broken ("" for cluster-wide calls) answer 403.
func setup(namespaces []string, broken string) func(t *testing.T) (collectors.Collector, func()) {
	return func(t *testing.T) (collectors.Collector, func()) {
		cs := fake.NewClientset(fixture()...)
		var fail atomic.Bool
		cs.PrependReactor("list", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if !fail.Load() || a.GetNamespace() != broken {
				return false, nil, nil
			}
			gr := schema.GroupResource{Group: "batch", Resource: a.GetResource().Resource}
			return true, nil, apierrors.NewForbidden(gr, "", errString("RBAC: access removed"))
		})
		c := kubernetes.New()
		c.Client = cs
		c.Namespaces = namespaces
		c.OwnerLabel = "owner"
		c.Retry = remote.RetryPolicy{Attempts: 1}
		if err := c.Init(matrixEnv); err != nil {
			t.Fatal(err)
		}
		return c, func() { fail.Store(true) }
	}
}

// matrixEnv names the source as the matrix's audit does.
var matrixEnv = collectors.Env{Source: "k8s-matrix", Selector: correlate.MustSelector(), Now: time.Now}

type errString string

func (e errString) Error() string { return string(e) }

func fixture() []runtime.Object {
	created := metav1.NewTime(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC))
	done := metav1.NewTime(time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC))
	labels := map[string]string{"backfill-id": "bf-7001", "owner": "data-eng@example.com"}
	suspend := true
	return []runtime.Object{
		&batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "bf-7001-replay", Labels: labels, CreationTimestamp: created},
			Spec:       batchv1.CronJobSpec{Schedule: "0 2 * * *", Suspend: &suspend},
		},
		&batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "bf-7001-replay-1", Labels: labels, CreationTimestamp: created},
			Status: batchv1.JobStatus{StartTime: &created, CompletionTime: &done, Succeeded: 1,
				Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: done}}},
		},
		&batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "nightly", Labels: map[string]string{"backfill-id": "bf-1"}, CreationTimestamp: created},
			Spec:       batchv1.CronJobSpec{Schedule: "@daily"},
		},
	}
}
