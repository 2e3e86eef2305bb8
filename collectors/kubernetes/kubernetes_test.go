package kubernetes

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"gopkg.in/yaml.v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func ts(s string) metav1.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return metav1.NewTime(t)
}

func ptr[T any](v T) *T { return &v }

func meta(ns, name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, CreationTimestamp: ts("2026-09-18T08:00:00Z")}
}

// estate is a cluster with backfill machinery left in several states.
func estate() []runtime.Object {
	return []runtime.Object{
		&batchv1.CronJob{
			ObjectMeta: meta("batch", "bf-1234-replay", map[string]string{"backfill-id": "BF-1234", "owner": "alice@example.com"}),
			Spec: batchv1.CronJobSpec{Schedule: "0 2 * * *", Suspend: ptr(true), ConcurrencyPolicy: batchv1.ForbidConcurrent,
				TimeZone: ptr("Europe/Berlin")},
			Status: batchv1.CronJobStatus{LastScheduleTime: ptr(ts("2026-09-20T02:00:00Z")),
				LastSuccessfulTime: ptr(ts("2026-09-20T02:40:00Z"))},
		},
		&batchv1.CronJob{ // not backfill machinery: no label
			ObjectMeta: meta("batch", "nightly-report", map[string]string{"team": "bi"}),
			Spec:       batchv1.CronJobSpec{Schedule: "0 5 * * *"},
		},
		&batchv1.Job{ // finished, no TTL: left behind for good
			ObjectMeta: withOwner(meta("batch", "bf-1234-replay-29300000", map[string]string{"backfill-id": "BF-1234"}), "bf-1234-replay"),
			Spec:       batchv1.JobSpec{Parallelism: ptr(int32(4))},
			Status: batchv1.JobStatus{StartTime: ptr(ts("2026-09-20T02:00:00Z")), CompletionTime: ptr(ts("2026-09-20T02:40:00Z")),
				Succeeded: 90, Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue,
					LastTransitionTime: ts("2026-09-20T02:40:00Z")}}},
		},
		&batchv1.Job{ // running, in a Kueue queue, with a TTL
			ObjectMeta: meta("batch", "bf-3100-ledger", map[string]string{"backfill-id": "bf-3100", kueueQueueLabel: "backfill-low"}),
			Spec:       batchv1.JobSpec{TTLSecondsAfterFinished: ptr(int32(3600)), Parallelism: ptr(int32(16))},
			Status:     batchv1.JobStatus{StartTime: ptr(ts("2026-10-14T01:00:00Z")), Active: 16},
		},
		&batchv1.Job{ // failed, expires a day after failing
			ObjectMeta: meta("batch", "bf-3100-ledger-retry", map[string]string{"backfill-id": "bf-3100"}),
			Spec:       batchv1.JobSpec{TTLSecondsAfterFinished: ptr(int32(86400))},
			Status: batchv1.JobStatus{StartTime: ptr(ts("2026-10-10T00:00:00Z")), Failed: 3,
				Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
					LastTransitionTime: ts("2026-10-10T06:00:00Z")}}},
		},
		&batchv1.Job{ // suspended: queued
			ObjectMeta: meta("batch", "bf-3100-ledger-next", map[string]string{"backfill-id": "bf-3100"}),
			Spec:       batchv1.JobSpec{Suspend: ptr(true)},
		},
		&batchv1.CronJob{ // in a namespace this identity may not read
			ObjectMeta: meta("secret", "bf-9999-replay", map[string]string{"backfill-id": "BF-9999"}),
			Spec:       batchv1.CronJobSpec{Schedule: "@daily"},
		},
		&batchv1.CronJob{ // labelled under another key
			ObjectMeta: meta("other", "bf-77-replay", map[string]string{"backfill_id": "BF-77", "backfill-id": "BF-77"}),
			Spec:       batchv1.CronJobSpec{Schedule: "@hourly"},
		},
		&batchv1.CronJob{
			ObjectMeta: meta("other", "bf-78-replay", map[string]string{"backfill_id": "BF-78"}),
			Spec:       batchv1.CronJobSpec{Schedule: "@hourly"},
		},
	}
}

func withOwner(m metav1.ObjectMeta, cronJob string) metav1.ObjectMeta {
	m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: cronJob, Controller: ptr(true)}}
	return m
}

// forbid makes list calls for one namespace ("" for cluster-wide) answer
// 403, as the API server does without RBAC.
func forbid(cs *fake.Clientset, ns string) {
	cs.PrependReactor("list", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() != ns {
			return false, nil, nil
		}
		gr := schema.GroupResource{Group: "batch", Resource: a.GetResource().Resource}
		return true, nil, apierrors.NewForbidden(gr, "", errForbidden(ns))
	})
}

type errForbidden string

func (e errForbidden) Error() string {
	return `User "system:serviceaccount:bfaudit:bfaudit" cannot list resource in the namespace "` + string(e) + `"`
}

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func newCollector(t *testing.T, cs *fake.Clientset, set func(*Kubernetes)) (*Kubernetes, *sleeps) {
	t.Helper()
	s := &sleeps{}
	c := New()
	c.Client = cs
	c.OwnerLabel = "owner"
	c.Retry = remote.RetryPolicy{Sleep: s.sleep}
	if set != nil {
		set(c)
	}
	if err := c.Init(env("k8s-test")); err != nil {
		t.Fatal(err)
	}
	return c, s
}

// env is what the audit hands a source named source ("": no name).
func env(source string) collectors.Env {
	return collectors.Env{Source: source, Selector: correlate.MustSelector(), Now: time.Now}
}

func collect(t *testing.T, c *Kubernetes) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return sink
}

func names(sink *collectors.TestSink) []string {
	var out []string
	for _, a := range sink.Artifacts {
		out = append(out, a.URI)
	}
	return out
}

const base = "kubernetes://k8s-test/"

func TestCollectLabelledCronJobsAndJobs(t *testing.T) {
	cs := fake.NewClientset(estate()...)
	forbid(cs, "secret")
	c, _ := newCollector(t, cs, func(c *Kubernetes) { c.Namespaces = []string{"batch", "secret"} })
	sink := collect(t, c)

	if len(sink.Artifacts) != 5 {
		t.Errorf("got %d artifacts, want the labelled cronjob and 4 jobs of batch: %v", len(sink.Artifacts), names(sink))
	}
	tests := []struct {
		uri   string
		kind  model.Kind
		id    string
		state model.State
		attrs map[string]string
	}{
		{base + "batch/cronjobs/bf-1234-replay", model.KindSchedulerJob, "BF-1234", model.StatePaused, map[string]string{
			AttrSuspend: "true", model.AttrSchedule: "0 2 * * *", AttrConcurrencyPolicy: "Forbid",
			model.AttrMaxActiveRuns: "1", AttrTimeZone: "Europe/Berlin", AttrLastSuccessful: "2026-09-20T02:40:00Z"}},
		{base + "batch/jobs/bf-1234-replay-29300000", model.KindJobRun, "BF-1234", "", map[string]string{
			model.AttrRunState: "success", AttrTTLMissing: "true", AttrFinished: "true",
			AttrCompletionTime: "2026-09-20T02:40:00Z", AttrCronJob: "bf-1234-replay", model.AttrMaxActiveRuns: "4"}},
		{base + "batch/jobs/bf-3100-ledger", model.KindJobRun, "bf-3100", model.StateActive, map[string]string{
			model.AttrRunState: "running", AttrTTLMissing: "false", AttrTTLSeconds: "3600", model.AttrPool: "backfill-low",
			AttrFinished: "false", model.AttrRunType: "backfill"}}, // a labelled Job is a backfill's run (BF027)
		{base + "batch/jobs/bf-3100-ledger-retry", model.KindJobRun, "bf-3100", "", map[string]string{
			model.AttrRunState: "failed", AttrCompletionTime: "2026-10-10T06:00:00Z", AttrFailed: "3"}},
		{base + "batch/jobs/bf-3100-ledger-next", model.KindJobRun, "bf-3100", model.StateActive, map[string]string{
			model.AttrRunState: "queued", AttrTTLMissing: "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			a := sink.Artifact(tt.uri)
			if a == nil {
				t.Fatalf("missing; have %v", names(sink))
			}
			if a.Kind != tt.kind || a.BackfillID != tt.id || a.State != tt.state || a.Scope != "batch" || a.Correlation != "label" {
				t.Errorf("kind %q id %q state %q scope %q how %q", a.Kind, a.BackfillID, a.State, a.Scope, a.Correlation)
			}
			for k, v := range tt.attrs {
				if a.Attr(k) != v {
					t.Errorf("%s = %q, want %q", k, a.Attr(k), v)
				}
			}
		})
	}
	if a := sink.Artifact(base + "batch/cronjobs/bf-1234-replay"); a != nil && a.Owner != "alice@example.com" {
		t.Errorf("owner %q from the owner label", a.Owner)
	}
	if a := sink.Artifact(base + "batch/jobs/bf-3100-ledger-retry"); a != nil &&
		!a.ExpiresAt.Time().Equal(time.Date(2026, 10, 11, 6, 0, 0, 0, time.UTC)) {
		t.Errorf("failed job expires %v, want failure + 24h ttl", a.ExpiresAt)
	}

	// The forbidden namespace degrades that namespace only.
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "secret" || !strings.Contains(sink.Errors[0].Error, "forbidden") {
		t.Errorf("errors %v, want one Forbidden error in scope secret", sink.Errors)
	}
}

func TestListsWithLabelSelector(t *testing.T) {
	cs := fake.NewClientset(estate()...)
	c, _ := newCollector(t, cs, func(c *Kubernetes) { c.LabelSelector = "team!=bi" })
	collect(t, c)
	for _, a := range cs.Actions() {
		la, ok := a.(k8stesting.ListActionImpl)
		if !ok {
			continue
		}
		if la.GetNamespace() != "" {
			t.Errorf("namespaces unset but listed namespace %q", la.GetNamespace())
		}
		if sel := la.GetListOptions().LabelSelector; sel != "backfill-id,team!=bi" {
			t.Errorf("list %s with selector %q", la.GetResource().Resource, sel)
		}
		if la.GetListOptions().Limit != defaultPageSize {
			t.Errorf("limit %d, want %d", la.GetListOptions().Limit, defaultPageSize)
		}
	}
}

func TestAllNamespacesByLabelKeys(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want []string
	}{
		{"default key", nil, []string{"other/cronjobs/bf-77-replay", "secret/cronjobs/bf-9999-replay"}},
		{"two keys, deduplicated", []string{"backfill-id", "backfill_id"},
			[]string{"other/cronjobs/bf-77-replay", "other/cronjobs/bf-78-replay", "secret/cronjobs/bf-9999-replay"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := fake.NewClientset(estate()...)
			c, _ := newCollector(t, cs, func(c *Kubernetes) {
				if tt.keys != nil {
					c.LabelKeys = tt.keys
				}
			})
			sink := collect(t, c)
			for _, want := range tt.want {
				if sink.Artifact(base+want) == nil {
					t.Errorf("missing %s; have %v", want, names(sink))
				}
			}
			n := 0
			for _, a := range sink.Artifacts {
				if a.Name == "bf-77-replay" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("bf-77-replay reported %d times", n)
			}
		})
	}
}

func TestClusterWideForbiddenFailsSource(t *testing.T) {
	cs := fake.NewClientset(estate()...)
	forbid(cs, "")
	c, _ := newCollector(t, cs, nil)
	err := collectors.Collect(context.Background(), c, collectors.NewTestSink())
	if err == nil || !strings.Contains(err.Error(), "k8s-test") || !strings.Contains(err.Error(), "set namespaces") {
		t.Errorf("Collect() = %v, want a failure naming the source and the fix", err)
	}
}

func TestRetriesThrottling(t *testing.T) {
	cs := fake.NewClientset(estate()...)
	throttled := false
	cs.PrependReactor("list", "cronjobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		if throttled {
			return false, nil, nil
		}
		throttled = true
		return true, nil, apierrors.NewTooManyRequests("the server has received too many requests", 3)
	})
	c, s := newCollector(t, cs, func(c *Kubernetes) { c.Namespaces = []string{"batch"} })
	sink := collect(t, c)
	if len(s.d) != 1 || s.d[0] != 3*time.Second {
		t.Errorf("waits %v, want one of 3s as the server asked", s.d)
	}
	if sink.Artifact(base+"batch/cronjobs/bf-1234-replay") == nil || len(sink.Errors) != 0 {
		t.Errorf("after the retry: %v, errors %v", names(sink), sink.Errors)
	}
}

func TestFollowsContinueTokens(t *testing.T) {
	cs := fake.NewClientset()
	page := func(name string) batchv1.Job {
		return batchv1.Job{ObjectMeta: meta("batch", name, map[string]string{"backfill-id": "BF-1"})}
	}
	cs.PrependReactor("list", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch a.(k8stesting.ListActionImpl).GetListOptions().Continue {
		case "":
			return true, &batchv1.JobList{ListMeta: metav1.ListMeta{Continue: "page-2"}, Items: []batchv1.Job{page("a")}}, nil
		case "page-2":
			return true, &batchv1.JobList{Items: []batchv1.Job{page("b")}}, nil
		}
		return true, nil, apierrors.NewBadRequest("unknown continue token")
	})
	c, _ := newCollector(t, cs, func(c *Kubernetes) { c.Namespaces = []string{"batch"} })
	sink := collect(t, c)
	if sink.Artifact(base+"batch/jobs/a") == nil || sink.Artifact(base+"batch/jobs/b") == nil {
		t.Errorf("pages not followed: %v", names(sink))
	}
}

func TestInitErrors(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Kubernetes)
		want string
	}{
		{"bad label key", func(c *Kubernetes) { c.LabelKeys = []string{"backfill-id=x"} }, "label_keys[0]"},
		{"no label keys", func(c *Kubernetes) { c.LabelKeys = nil }, "label_keys: empty"},
		{"bad selector", func(c *Kubernetes) { c.LabelSelector = "a in (" }, "label_selector"},
		{"empty namespace", func(c *Kubernetes) { c.Namespaces = []string{"batch", " "} }, "namespaces[1]"},
		{"missing kubeconfig", func(c *Kubernetes) { c.Kubeconfig = "/nonexistent/kubeconfig" }, "/nonexistent/kubeconfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			tt.set(c)
			err := c.Init(env(""))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Init() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestKubeconfigBuildsClient(t *testing.T) {
	c := New()
	c.Kubeconfig = "testdata/kubeconfig"
	if err := c.Init(env("")); err != nil {
		t.Fatal(err)
	}
	if c.Client == nil || c.authority() != "127.0.0.1:6443" {
		t.Errorf("client %v, authority %q (want the API server's host)", c.Client, c.authority())
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	t.Setenv("KUBECONFIG", "testdata/kubeconfig")
	t.Setenv("KUBERNETES_SERVICE_HOST", "") // not in a cluster
	var entries []map[string]any
	if err := yaml.Unmarshal([]byte(sampleConfig), &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("sample has %d entries", len(entries))
	}
	inst, err := collectors.Decode(entries[0], collectors.Env{})
	if err != nil {
		t.Fatalf("sample does not decode: %v", err)
	}
	c := inst.Collector.(*Kubernetes)
	if inst.Name != "k8s-prod" || len(c.Namespaces) != 2 || c.LabelKeys[0] != "backfill-id" || c.OwnerLabel != "owner" {
		t.Errorf("decoded %+v", c)
	}
}
