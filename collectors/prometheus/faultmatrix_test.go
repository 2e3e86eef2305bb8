package prometheus

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	discoveryfake "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// After BF-7001, its Prometheus still holds the special alert that only
// watched the replay's series (BF007), in a group of its own, beside
// production rules.
func matrixGroups() []json.RawMessage {
	return []json.RawMessage{
		groupJSON("/etc/prometheus/rules/bf-7001.yml", "bf-7001-watch",
			alertingJSON("BF7001ReplayLag", `max(backfill_lag_seconds{backfill_id="bf-7001"}) > 600`, map[string]string{"severity": "warning"})),
		groupJSON("/etc/prometheus/rules/prod.yml", "production",
			alertingJSON("OrdersLag", `max(orders_lag_seconds) > 600`, map[string]string{"severity": "critical"})),
	}
}

// apiUnit serves the fixture and breaks it with breakIt before the second run.
func apiUnit(kind, scope string, breakIt func(f *fakeProm)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		f := newFakeProm(t, matrixGroups())
		f.paging = true
		c := newCollector(t, f.URL())
		c.Timeout = 500 * time.Millisecond // the slow answer below outlasts it
		return c, func() { breakIt(f) }
	}}
}

func TestFaultMatrixAPI(t *testing.T) {
	const group = "rules/%2Fetc%2Fprometheus%2Frules%2Fbf-7001.yml/bf-7001-watch"
	faultmatrix.Run(t, "prometheus", []faultmatrix.Unit{
		apiUnit("source", "", func(f *fakeProm) { f.srv.Close() }),                           // server down
		apiUnit("source", "", func(f *fakeProm) { f.set("/api/v1/rules", status(500)) }),     // 500
		apiUnit("source", "", func(f *fakeProm) { f.set("/api/v1/rules", hostile.Stall()) }), // slow answer
		apiUnit("source", "", func(f *fakeProm) { f.set("/api/v1/rules", hostile.Drip(time.Second/10)) }),
		// The group is listed but one of its rules is not a rule: the
		// group did not answer in full.
		apiUnit("rule group", group, func(f *fakeProm) {
			gs := matrixGroups()
			gs[0] = groupJSON("/etc/prometheus/rules/bf-7001.yml", "bf-7001-watch",
				alertingJSON("BF7001ReplayLag", `max(backfill_lag_seconds{backfill_id="bf-7001"}) > 600`, nil),
				map[string]any{"type": "alerting", "query": "up"})
			f.setGroups(gs)
		}),
	})
}

// fileUnit writes the fixture as rule files and breaks it with breakIt.
func fileUnit(kind, scope string, breakIt func(t *testing.T, dir string)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		dir := writeFiles(t, map[string]string{
			"rules/bf-7001.yml": "groups:\n  - name: bf-7001-watch\n    rules:\n      - alert: BF7001ReplayLag\n        expr: max(backfill_lag_seconds{backfill_id=\"bf-7001\"}) > 600\n",
			"rules/prod.yml":    "groups:\n  - name: production\n    rules:\n      - alert: OrdersLag\n        expr: max(orders_lag_seconds) > 600\n",
		})
		return fileCollector(t, dir, "rules/*.yml"), func() { breakIt(t, dir) }
	}}
}

func TestFaultMatrixFiles(t *testing.T) {
	faultmatrix.Run(t, "prometheus", []faultmatrix.Unit{
		fileUnit("rule file", "rules/bf-7001.yml", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "rules/bf-7001.yml"), []byte("groups:\n  - name: [\n"), 0o644)
		}),
		fileUnit("rule file", "rules/bf-7001.yml", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "rules/bf-7001.yml"), nil, 0o644)
		}),
		// The directory the glob reads is gone: its files are not "deleted".
		fileUnit("directory", "rules", func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "rules")) }),
	})
}

// The same special alert as a PrometheusRule in namespace monitoring,
// beside a production rule in namespace other.
const matrixObjects = `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: bf-7001-watch, namespace: monitoring}
spec:
  groups:
    - name: bf-7001-watch
      rules:
        - alert: BF7001ReplayLag
          expr: max(backfill_lag_seconds{backfill_id="bf-7001"}) > 600
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: production, namespace: other}
spec:
  groups:
    - name: production
      rules:
        - alert: OrdersLag
          expr: max(orders_lag_seconds) > 600
`

// clusterUnit serves matrixObjects from a fake cluster read namespace by
// namespace (cluster-wide when namespaces is nil) and breaks it with
// breakIt before the second run.
func clusterUnit(kind, scope string, namespaces []string, breakIt func(t *testing.T, dyn *dynamicfake.FakeDynamicClient, disc *discoveryfake.FakeDiscovery)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		dyn, disc := fakeCluster(true, objects(t, matrixObjects)...)
		p := clusterCollector(t, dyn, disc, namespaces...)
		p.Retry = remote.RetryPolicy{Attempts: 1}
		return p, func() { breakIt(t, dyn, disc) }
	}}
}

func TestFaultMatrixCluster(t *testing.T) {
	namespaces := []string{"monitoring", "other"}
	forbidden := apierrors.NewForbidden(prometheusRuleGVR.GroupResource(), "", errors.New("RBAC: access removed"))
	faultmatrix.Run(t, "prometheus", []faultmatrix.Unit{
		// The cluster does not answer discovery: nothing it holds is gone.
		clusterUnit("cluster", "", namespaces, func(t *testing.T, _ *dynamicfake.FakeDynamicClient, disc *discoveryfake.FakeDiscovery) {
			disc.PrependReactor("get", "*", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, errors.New("dial tcp 10.0.0.1:6443: connect: connection refused")
			})
		}),
		// The cluster-wide listing is refused.
		clusterUnit("cluster", "", nil, func(t *testing.T, dyn *dynamicfake.FakeDynamicClient, _ *discoveryfake.FakeDiscovery) {
			refuse(dyn, "", forbidden)
		}),
		// One namespace's listing is refused; the other still answers.
		clusterUnit("namespace", "monitoring", namespaces, func(t *testing.T, dyn *dynamicfake.FakeDynamicClient, _ *discoveryfake.FakeDiscovery) {
			refuse(dyn, "monitoring", forbidden)
		}),
		// The object is still there, but its spec no longer parses.
		clusterUnit("PrometheusRule", "monitoring/bf-7001-watch", namespaces, func(t *testing.T, dyn *dynamicfake.FakeDynamicClient, _ *discoveryfake.FakeDiscovery) {
			broken := objects(t, strings.Replace(matrixObjects, `> 600`, `> (`, 1))[0]
			if err := dyn.Tracker().Update(prometheusRuleGVR, broken, "monitoring"); err != nil {
				t.Fatal(err)
			}
		}),
	})
}
