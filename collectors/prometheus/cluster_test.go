package prometheus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"gopkg.in/yaml.v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	discoveryfake "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// A second namespace's PrometheusRule: one rule tied by its label, one
// production rule beside it.
const otherNamespaceRule = `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: ledger
  namespace: data
spec:
  groups:
    - name: ledger
      rules:
        - alert: LedgerReplayBehind
          expr: max(ledger_replay_lag_seconds) > 3600
          for: 15m
          labels: {backfill_id: bf-3100, severity: critical}
        - alert: LedgerDown
          expr: up{job="ledger"} == 0
`

// objects decodes the PrometheusRule documents of a manifest as the API
// server would hand them out.
func objects(t *testing.T, manifests ...string) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, mf := range manifests {
		dec := yaml.NewDecoder(strings.NewReader(mf))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				break
			}
			if doc["kind"] != "PrometheusRule" {
				continue
			}
			raw, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(raw); err != nil {
				t.Fatal(err)
			}
			out = append(out, u)
		}
	}
	return out
}

// fakeCluster is an API server that serves core v1 and, when crd is set,
// the Prometheus Operator's monitoring.coreos.com/v1 with its objects.
func fakeCluster(crd bool, objs ...runtime.Object) (*dynamicfake.FakeDynamicClient, *discoveryfake.FakeDiscovery) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{prometheusRuleGVR: "PrometheusRuleList"}, objs...)
	disc := &discoveryfake.FakeDiscovery{Fake: &k8stesting.Fake{}}
	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "namespaces", Kind: "Namespace", Verbs: []string{"get", "list"}},
		{Name: "configmaps", Namespaced: true, Kind: "ConfigMap", Verbs: []string{"get", "list"}},
	}}}
	if crd {
		disc.Resources = append(disc.Resources, &metav1.APIResourceList{GroupVersion: "monitoring.coreos.com/v1", APIResources: []metav1.APIResource{
			{Name: "alertmanagers", Namespaced: true, Kind: "Alertmanager", Verbs: []string{"get", "list"}},
			{Name: "prometheusrules", Namespaced: true, Kind: "PrometheusRule", Verbs: []string{"get", "list"}},
		}})
	}
	return dyn, disc
}

// clusterCollector reads the fake cluster's namespaces (all when none)
// with instant retries.
func clusterCollector(t *testing.T, dyn *dynamicfake.FakeDynamicClient, disc *discoveryfake.FakeDiscovery, namespaces ...string) *Prometheus {
	t.Helper()
	p := New()
	p.Kubernetes = &Cluster{Namespaces: namespaces, Dynamic: dyn, Discovery: disc}
	p.Retry = remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := p.Init(env("k8s-rules", "")); err != nil {
		t.Fatal(err)
	}
	return p
}

// listCalls counts the list calls the collector made.
func listCalls(dyn *dynamicfake.FakeDynamicClient) int {
	n := 0
	for _, a := range dyn.Actions() {
		if a.GetVerb() == "list" {
			n++
		}
	}
	return n
}

// A PrometheusRule read from the cluster is the same rule, tied the same
// way, as the same object read from a file; only where it was read
// differs.
func TestClusterRulesMatchTheFilePath(t *testing.T) {
	dyn, disc := fakeCluster(true, objects(t, prometheusRules, otherNamespaceRule)...)
	sink, err := collectortest.Collect(t, clusterCollector(t, dyn, disc))
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	want := map[string]tie{
		"prometheus://k8s-rules/prometheusrules/monitoring/bf-2001-alerts/replay/alert/ReplayStuck": {"bf-2001", "object name", "monitoring/bf-2001-alerts"},
		"prometheus://k8s-rules/prometheusrules/data/ledger/ledger/alert/LedgerReplayBehind":        {"bf-3100", "label", "data/ledger"},
	}
	checkTies(t, sink, want)
	for uri := range want {
		a := sink.Artifact(uri)
		if a == nil {
			continue
		}
		if _, has := a.Attributes.Lookup(AttrFile); has {
			t.Errorf("%s: a cluster's rule has no file, got %q", uri, a.Attr(AttrFile))
		}
	}

	dir := writeFiles(t, map[string]string{"k8s/rules.yaml": prometheusRules + "---\n" + otherNamespaceRule})
	files, err := collectortest.Collect(t, fileCollector(t, dir, "k8s/rules.yaml"))
	if err != nil || len(files.Errors) > 0 {
		t.Fatalf("files: %v %+v", err, files.Errors)
	}
	if len(files.Artifacts) != len(sink.Artifacts) {
		t.Fatalf("files gave %v, the cluster %v", uris(files), uris(sink))
	}
	for _, f := range files.Artifacts {
		uri := strings.Replace(f.URI, "prometheus://rules-repo/files/k8s/rules.yaml/", "prometheus://k8s-rules/prometheusrules/", 1)
		c := sink.Artifact(uri)
		if c == nil {
			t.Errorf("%s from the file has no counterpart %s in the cluster", f.URI, uri)
			continue
		}
		f.URI, f.Scope = c.URI, c.Scope
		f.Attributes = f.Attributes.Without(AttrFile)
		fj, _ := json.Marshal(f)
		cj, _ := json.Marshal(*c)
		if string(fj) != string(cj) {
			t.Errorf("the same rule differs:\nfile:    %s\ncluster: %s", fj, cj)
		}
	}
	if a := sink.Artifact("prometheus://k8s-rules/prometheusrules/data/ledger/ledger/alert/LedgerReplayBehind"); a != nil &&
		(a.Attr(AttrObject) != "data/ledger" || a.Attr(AttrFor) != "15m" || a.Labels.Get("severity") != "critical") {
		t.Errorf("LedgerReplayBehind: %+v", a)
	}
}

// Without the CRD the cluster holds no PrometheusRule: nothing is listed,
// nothing fails, and a note says why nothing was read.
func TestClusterWithoutTheCRD(t *testing.T) {
	dyn, disc := fakeCluster(false)
	p := clusterCollector(t, dyn, disc, "monitoring")
	sink, err := collectortest.Collect(t, p)
	if err != nil || len(sink.Errors) > 0 || len(sink.Artifacts) > 0 {
		t.Fatalf("Collect: %v, errors %+v, artifacts %v", err, sink.Errors, uris(sink))
	}
	if listCalls(dyn) != 0 {
		t.Errorf("%d list calls on a resource the cluster does not serve", listCalls(dyn))
	}
	if n := p.Notes(); len(n) != 1 || !strings.Contains(n[0], "no PrometheusRule CRD") {
		t.Errorf("notes %q, want one saying the CRD is absent", n)
	}

	// The group without the resource (another operator's CRDs only).
	dyn, disc = fakeCluster(true)
	disc.Resources[1].APIResources = disc.Resources[1].APIResources[:1]
	p = clusterCollector(t, dyn, disc)
	if sink, err := collectortest.Collect(t, p); err != nil || len(sink.Errors) > 0 || len(p.Notes()) != 1 || listCalls(dyn) != 0 {
		t.Errorf("group without prometheusrules: %v %+v %q", err, sink.Errors, p.Notes())
	}

	// A cluster with the CRD says nothing.
	dyn, disc = fakeCluster(true)
	p = clusterCollector(t, dyn, disc)
	if _, err := collectortest.Collect(t, p); err != nil || len(p.Notes()) != 0 {
		t.Errorf("with the CRD: %v %q", err, p.Notes())
	}
}

// A cluster that cannot be asked fails the source: its namespaces did not
// answer, whatever they held.
func TestClusterThatDoesNotAnswer(t *testing.T) {
	refused := errors.New("dial tcp 10.0.0.1:6443: connect: connection refused")
	for _, tt := range []struct {
		name  string
		react k8stesting.ReactionFunc
		want  string
	}{
		{"unreachable", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, refused }, "connection refused"},
		{"503 after retries", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewServiceUnavailable("apiserver restarting")
		}, "gave up after 4 attempts"},
		{"the group listed, its resources not found", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.GetResource().Resource == "resource" {
				return true, nil, apierrors.NewNotFound(prometheusRuleGVR.GroupResource(), "")
			}
			return false, nil, nil
		}, "not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dyn, disc := fakeCluster(true, objects(t, prometheusRules)...)
			disc.PrependReactor("get", "*", tt.react)
			p := clusterCollector(t, dyn, disc, "monitoring")
			sink, err := collectortest.Collect(t, p)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "k8s-rules") {
				t.Errorf("Collect = %v, want the source failed saying %q", err, tt.want)
			}
			if len(sink.Artifacts) > 0 || len(p.Notes()) > 0 {
				t.Errorf("an unanswered cluster reported %v, notes %q", uris(sink), p.Notes())
			}
		})
	}
	t.Run("no API groups at all", func(t *testing.T) {
		dyn, disc := fakeCluster(false)
		disc.Resources = nil // a proxy answering 404 to /api and /apis
		_, err := collectortest.Collect(t, clusterCollector(t, dyn, disc))
		if err == nil || !strings.Contains(err.Error(), "not a Kubernetes API server") {
			t.Errorf("Collect = %v, want an error, not \"no CRD\"", err)
		}
	})
}

// refuse makes every list call in namespace ns (all namespaces when "")
// answer err.
func refuse(dyn *dynamicfake.FakeDynamicClient, ns string, err error) {
	dyn.PrependReactor("list", "prometheusrules", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() != ns {
			return false, nil, nil
		}
		return true, nil, err
	})
}

// A namespace whose listing fails is an error there; the other namespaces
// answer. A cluster-wide listing that fails fails the source.
func TestClusterNamespaceThatDoesNotAnswer(t *testing.T) {
	forbidden := apierrors.NewForbidden(prometheusRuleGVR.GroupResource(), "", errors.New(`User "bfaudit" cannot list resource "prometheusrules"`))
	dyn, disc := fakeCluster(true, objects(t, prometheusRules, otherNamespaceRule)...)
	refuse(dyn, "monitoring", forbidden)
	sink, err := collectortest.Collect(t, clusterCollector(t, dyn, disc, "monitoring", "data"))
	if err != nil {
		t.Fatalf("Collect failed the source: %v", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "monitoring" || !strings.Contains(sink.Errors[0].Error, "grant get/list on prometheusrules") {
		t.Errorf("errors %+v, want one at monitoring with the RBAC hint", sink.Errors)
	}
	if len(sink.Artifacts) != 1 || sink.Artifacts[0].Scope != "data/ledger" {
		t.Errorf("the namespace that answered: %v", uris(sink))
	}

	dyn, disc = fakeCluster(true, objects(t, prometheusRules)...)
	refuse(dyn, "", forbidden)
	_, err = collectortest.Collect(t, clusterCollector(t, dyn, disc))
	if err == nil || !strings.Contains(err.Error(), "all namespaces") || !strings.Contains(err.Error(), "set kubernetes.namespaces") {
		t.Errorf("cluster-wide listing refused: Collect = %v, want the source failed with the hint", err)
	}
}

// An object whose spec does not parse is an error at that object; the
// other objects of its namespace are read.
func TestClusterObjectThatDoesNotParse(t *testing.T) {
	broken := strings.NewReplacer("bf-2001-alerts", "broken", "max(replay_progress{job=\"replays\"}) == 0", "sum(").Replace(prometheusRules)
	empty := "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: emptied, namespace: monitoring}\nspec: {}\n"
	dyn, disc := fakeCluster(true, objects(t, prometheusRules, broken, empty)...)
	sink, err := collectortest.Collect(t, clusterCollector(t, dyn, disc, "monitoring"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "monitoring/broken" || !strings.Contains(sink.Errors[0].Error, "PrometheusRule: spec") ||
		strings.Contains(sink.Errors[0].Error, "monitoring/broken") {
		t.Errorf("errors %+v, want one at monitoring/broken", sink.Errors)
	}
	if len(sink.Artifacts) != 1 || sink.Artifacts[0].Scope != "monitoring/bf-2001-alerts" {
		t.Errorf("the good object: %v", uris(sink))
	}
}

// pager serves the namespace's objects limit at a time, as an API server
// pages with continue tokens, and records the limits asked.
func pager(t *testing.T, dyn *dynamicfake.FakeDynamicClient, objs []runtime.Object, limits *[]int64) {
	dyn.PrependReactor("list", "prometheusrules", func(a k8stesting.Action) (bool, runtime.Object, error) {
		opts := a.(k8stesting.ListActionImpl).ListOptions
		*limits = append(*limits, opts.Limit)
		start := 0
		if opts.Continue != "" {
			fmt.Sscanf(opts.Continue, "from-%d", &start)
		}
		end := min(start+int(opts.Limit), len(objs))
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion("monitoring.coreos.com/v1")
		list.SetKind("PrometheusRuleList")
		list.SetResourceVersion("42")
		for _, o := range objs[start:end] {
			list.Items = append(list.Items, *o.(*unstructured.Unstructured))
		}
		if end < len(objs) {
			list.SetContinue(fmt.Sprintf("from-%d", end))
		}
		return true, list, nil
	})
}

func TestClusterPaging(t *testing.T) {
	var objs []runtime.Object
	for i := range 5 {
		objs = append(objs, objects(t, strings.ReplaceAll(prometheusRules, "bf-2001", fmt.Sprintf("bf-20%02d", i)))...)
	}
	dyn, disc := fakeCluster(true)
	var limits []int64
	pager(t, dyn, objs, &limits)
	p := clusterCollector(t, dyn, disc, "monitoring")
	p.Kubernetes.PageSize = 2
	sink, err := collectortest.Collect(t, p)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	if len(sink.Artifacts) != 5 {
		t.Errorf("%d rules over 3 pages, want 5: %v", len(sink.Artifacts), uris(sink))
	}
	if fmt.Sprint(limits) != "[2 2 2]" {
		t.Errorf("limits asked %v, want [2 2 2]", limits)
	}
}

// A server that hands out continue tokens forever, or the same one again,
// cannot keep the audit: the walk stops and the namespace did not answer.
func TestClusterPagingIsBounded(t *testing.T) {
	for _, tt := range []struct {
		name  string
		token func(call int) string
		want  string
	}{
		{"endless new tokens", func(call int) string { return fmt.Sprintf("t%d", call) }, "still paging after 7 pages"},
		{"the same token again", func(int) string { return "again" }, "already read: the listing does not advance"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dyn, disc := fakeCluster(true, objects(t, otherNamespaceRule)...)
			calls := 0
			dyn.PrependReactor("list", "prometheusrules", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetNamespace() != "monitoring" {
					return false, nil, nil
				}
				calls++
				list := &unstructured.UnstructuredList{}
				list.SetResourceVersion("1")
				list.SetContinue(tt.token(calls))
				return true, list, nil
			})
			p := clusterCollector(t, dyn, disc, "monitoring", "data")
			p.MaxPages = 7
			sink, err := collectortest.Collect(t, p)
			if err != nil {
				t.Fatalf("Collect failed the source: %v", err)
			}
			if len(sink.Errors) != 1 || sink.Errors[0].Scope != "monitoring" || !strings.Contains(sink.Errors[0].Error, tt.want) {
				t.Errorf("errors %+v, want one at monitoring saying %q", sink.Errors, tt.want)
			}
			if calls > 7 || len(sink.Artifacts) != 1 {
				t.Errorf("%d calls (at most 7), rules %v", calls, uris(sink))
			}
		})
	}
}

// Throttling is retried after the delay the API server asks, under the
// policy's budget; a delay beyond it fails the namespace at once.
func TestClusterRetries(t *testing.T) {
	for _, tt := range []struct {
		name      string
		after     int
		wantWaits string
		wantErr   string
	}{
		{"Retry-After 2", 2, "[2s]", ""},
		{"Retry-After 3600", 3600, "[]", "beyond the retry budget"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dyn, disc := fakeCluster(true, objects(t, prometheusRules)...)
			throttled := 0
			dyn.PrependReactor("list", "prometheusrules", func(k8stesting.Action) (bool, runtime.Object, error) {
				throttled++
				if throttled > 1 {
					return false, nil, nil
				}
				return true, nil, apierrors.NewTooManyRequests("slow down", tt.after)
			})
			p := clusterCollector(t, dyn, disc, "monitoring")
			waits := []time.Duration{}
			p.Retry.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			// monitoring is the only unit: its error is the source's.
			sink, err := collectortest.Collect(t, p)
			if (tt.wantErr == "" && err != nil) || (tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr))) {
				t.Fatalf("Collect() = %v, want an error only with %q", err, tt.wantErr)
			}
			if fmt.Sprint(waits) != tt.wantWaits {
				t.Errorf("waits %v, want %s", waits, tt.wantWaits)
			}
			switch {
			case tt.wantErr == "" && (len(sink.Errors) > 0 || len(sink.Artifacts) != 1):
				t.Errorf("after one retry: %+v %v", sink.Errors, uris(sink))
			case tt.wantErr != "" && (len(sink.Errors) != 1 || sink.Errors[0].Scope != "monitoring" || !strings.Contains(sink.Errors[0].Error, tt.wantErr)):
				t.Errorf("errors %+v, want one at monitoring saying %q", sink.Errors, tt.wantErr)
			}
		})
	}
}

// An answer that holds another namespace's object is not trusted.
func TestClusterAnswerFromAnotherNamespace(t *testing.T) {
	dyn, disc := fakeCluster(true)
	dyn.PrependReactor("list", "prometheusrules", func(k8stesting.Action) (bool, runtime.Object, error) {
		list := &unstructured.UnstructuredList{}
		list.Items = append(list.Items, *objects(t, otherNamespaceRule)[0].(*unstructured.Unstructured))
		return true, list, nil
	})
	// monitoring is the only unit: its error is the source's.
	sink, err := collectortest.Collect(t, clusterCollector(t, dyn, disc, "monitoring"))
	if err == nil || !strings.Contains(err.Error(), "of namespace data") ||
		len(sink.Errors) != 1 || sink.Errors[0].Scope != "monitoring" || !strings.Contains(sink.Errors[0].Error, "of namespace data") || len(sink.Artifacts) > 0 {
		t.Errorf("%v %+v %v", err, sink.Errors, uris(sink))
	}
}

// testKubeconfig points at a cluster that is never called.
const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: "https://127.0.0.1:6443"}
contexts:
- name: test
  context: {cluster: test, user: test}
current-context: test
users:
- name: test
  user: {token: not-a-real-token}
`

func TestClusterConfig(t *testing.T) {
	kubeconfig := writeFiles(t, map[string]string{"kubeconfig": testKubeconfig}) + "/kubeconfig"
	block := func(kv ...any) map[string]any {
		m := map[string]any{"kubeconfig": kubeconfig}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	inst, err := collectors.Decode(map[string]any{"type": "prometheus", "name": "k8s-rules", "kubernetes": block("namespaces", []any{"monitoring"})}, collectors.Env{})
	if err != nil {
		t.Fatal(err)
	}
	p := inst.Collector.(*Prometheus)
	if p.Kubernetes == nil || p.Kubernetes.PageSize != DefaultPageSize || p.Kubernetes.Dynamic == nil || p.Kubernetes.Discovery == nil ||
		!p.Kubernetes.strict || p.Kubernetes.clusterName() != "cluster 127.0.0.1:6443" {
		t.Errorf("decoded %+v", p.Kubernetes)
	}
	// An empty block reads the default kubeconfig.
	t.Setenv("KUBECONFIG", kubeconfig)
	inst, err = collectors.Decode(map[string]any{"type": "prometheus", "kubernetes": map[string]any{}}, collectors.Env{})
	if err != nil || inst.Collector.(*Prometheus).Kubernetes == nil || inst.Collector.(*Prometheus).Kubernetes.Dynamic == nil {
		t.Errorf("kubernetes: {}: %v", err)
	}
	refusesBadTimeouts(t)
	for _, tt := range []struct {
		entry map[string]any
		key   string
	}{
		{map[string]any{"kubernetes": block("namespaces", []any{""})}, "kubernetes.namespaces[0]"},
		{map[string]any{"kubernetes": block("page_size", -1)}, "kubernetes.page_size"},
		{map[string]any{"kubernetes": block("namespace", "x")}, "namespace"},
		{map[string]any{"kubernetes": map[string]any{"kubeconfig": kubeconfig + ".missing"}}, "kubernetes.kubeconfig"},
		{map[string]any{"kubernetes": block(), "url": "http://prom:9090"}, "set one"},
		{map[string]any{"kubernetes": block(), "rule_files": []any{"a.yml"}}, "set one"},
		{map[string]any{"kubernetes": block(), "username": "bfaudit"}, "only used with url"},
	} {
		tt.entry["type"] = "prometheus"
		_, err := collectors.Decode(tt.entry, collectors.Env{})
		if err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("%v: err %v, want one naming %s", tt.entry, err, tt.key)
		}
	}
}

// refusesBadTimeouts: the source's timeout bounds the cluster's calls, so
// it is checked with a kubernetes block too.
func refusesBadTimeouts(t *testing.T) {
	t.Helper()
	dyn, disc := fakeCluster(true)
	for _, d := range []time.Duration{0, -time.Second, 24 * time.Hour} {
		p := New()
		p.Kubernetes = &Cluster{Dynamic: dyn, Discovery: disc}
		p.Timeout = d
		if err := p.Init(env("", "")); err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("timeout %s: Init() = %v, want it refused", d, err)
		}
	}
}
