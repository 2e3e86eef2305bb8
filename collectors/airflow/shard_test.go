package airflow

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// dagCalled is the DAG a request was made for, "" for a listing across
// DAGs (GET /dags, /dags/~/dagRuns, /pools, ...).
func dagCalled(r *http.Request) string {
	p := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/api/v2"), "/api/v1")
	if p == "/backfills" {
		return r.URL.Query().Get("dag_id")
	}
	if id, rest, ok := strings.Cut(strings.TrimPrefix(p, "/dags/"), "/"); ok && strings.HasPrefix(p, "/dags/") && id != allDAGs && rest != "" {
		return id
	}
	return ""
}

// dagsCalled returns each DAG the collector made calls for and how many.
func (f *fakeAirflow) dagsCalled() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for _, r := range f.requests {
		if id := dagCalled(r); id != "" {
			out[id]++
		}
	}
	return out
}

// Under collect --shard, the framework gives each unit to one shard: the
// DAG listing ("dags"), each DAG with calls of its own to make
// (dags/<dag_id>) and each deployment-wide listing. Every shard lists the
// DAGs and the backfill runs, one listing each, and makes the calls of
// its own DAGs only: each DAG is read, and reported with its runs and
// backfill objects, by exactly one shard, the DAGs are divided between
// the shards, and the shards report together exactly what one collection
// does.
func TestShardsSplitTheUnits(t *testing.T) {
	f := newFakeAirflow(t, "2")
	c, _ := newCollector(t, f, "2")
	whole := collect(t, c)
	wholeDAGs := f.dagsCalled()
	wholeListing := len(f.seen("/api/v2/dags"))
	paths := map[string]string{scopePools: "/api/v2/pools",
		scopeConnections: "/api/v2/connections", scopeVariables: "/api/v2/variables"}
	var got []string
	backfills := 0
	owners := map[string]int{}
	readBy := map[string][]int{} // DAG -> the shards that made its calls
	for i := range 3 {
		f := newFakeAirflow(t, "2")
		c, _ := newCollector(t, f, "2")
		spec := collectors.ShardSpec{Index: i, Count: 3}
		run, _ := collectors.ShardInstances([]collectors.Instance{{Name: "airflow-test", Type: "airflow", Collector: c}}, spec, nil)
		est, err := collectors.Run(context.Background(), run, 1, testNow)
		if err != nil {
			t.Fatal(err)
		}
		// Every shard lists the DAGs and the backfill runs once.
		if n := len(f.seen("/api/v2/dags")); n != wholeListing {
			t.Errorf("shard %d: %d pages of the DAG listing, one collection reads %d", i, n, wholeListing)
		}
		if n := len(f.seen("/api/v2/dags/~/dagRuns")); n == 0 {
			t.Errorf("shard %d: did not list the backfill runs", i)
		}
		for unit, path := range paths {
			if called := len(f.seen(path)) > 0; called != spec.Keep(unit) {
				t.Errorf("shard %d: called %s %v, owns %s %v", i, path, called, unit, spec.Keep(unit))
			}
		}
		for dag, n := range f.dagsCalled() {
			if !spec.Keep(dagScope(dag)) {
				t.Errorf("shard %d: made %d calls for DAG %s, which it does not own", i, n, dag)
			}
			if n != wholeDAGs[dag] {
				t.Errorf("shard %d: made %d calls for DAG %s, one collection makes %d", i, n, dag, wholeDAGs[dag])
			}
			readBy[dag] = append(readBy[dag], i)
		}
		for _, u := range append([]string{scopeDAGs}, slices.Collect(maps.Keys(paths))...) {
			if spec.Keep(u) {
				owners[u]++
			}
		}
		cov := est.Coverage[0]
		if cov.Status != model.CoverageOK {
			t.Errorf("shard %d: coverage %+v", i, cov)
		}
		// Each shard says it read the DAGs it reads, and no other's.
		for _, r := range cov.Reads {
			if model.ScopeWithin(r.Scope, scopeDAGs) && r.Scope != scopeDAGs {
				if dag := strings.Split(r.Scope, "/")[1]; wholeDAGs[dag] > 0 && !spec.Keep(dagScope(dag)) {
					t.Errorf("shard %d: reads %s of a DAG it does not own", i, r.Scope)
				}
			}
		}
		for _, a := range est.Artifacts {
			got = append(got, a.URI)
			if dag := a.Attr(AttrDagID); a.Kind == model.KindSchedulerJob && wholeDAGs[a.Name] > 0 && !spec.Keep(dagScope(a.Name)) ||
				a.Kind == model.KindJobRun && wholeDAGs[dag] > 0 && !spec.Keep(dagScope(dag)) {
				t.Errorf("shard %d: reports %s, of a DAG it does not own", i, a.URI)
			}
		}
		backfills += len(est.Backfills)
	}
	shards := map[int]bool{}
	for dag := range wholeDAGs {
		if len(readBy[dag]) != 1 {
			t.Errorf("DAG %s read by shards %v, want exactly one", dag, readBy[dag])
		} else {
			shards[readBy[dag][0]] = true
		}
	}
	if len(wholeDAGs) < 4 || len(shards) < 2 {
		t.Errorf("%d DAGs with calls of their own, read by shards %v: want them divided", len(wholeDAGs), shards)
	}
	want := uris(whole, "")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || backfills != len(whole.Backfills) || len(owners) != len(paths)+1 {
		t.Errorf("shards reported %v (%d backfills), one collection %v (%d); units owned %v", got, backfills, want, len(whole.Backfills), owners)
	}
}
