package airflow

import (
	"context"
	"slices"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// Under collect --shard, the framework gives each unit (the DAGs, each
// deployment-wide listing) to one shard: a shard calls only the listings
// of the units it owns, and the shards report together exactly what one
// collection does, each DAG with its runs and backfill objects once. (The
// DAGs are one unit: the framework reads units one at a time, and the
// per-DAG calls run concurrency at a time within it.)
func TestShardsSplitTheUnits(t *testing.T) {
	f := newFakeAirflow(t, "2")
	c, _ := newCollector(t, f, "2")
	whole := collect(t, c)
	paths := map[string]string{scopeDAGs: "/api/v2/dags", scopePools: "/api/v2/pools",
		scopeConnections: "/api/v2/connections", scopeVariables: "/api/v2/variables"}
	var got []string
	backfills := 0
	owners := map[string]int{}
	for i := range 3 { // 3 shards: dags and variables in one, pools and connections in another, none in the third
		f := newFakeAirflow(t, "2")
		c, _ := newCollector(t, f, "2")
		spec := collectors.ShardSpec{Index: i, Count: 3}
		run, _ := collectors.ShardInstances([]collectors.Instance{{Name: "airflow-test", Type: "airflow", Collector: c}}, spec, nil)
		est, err := collectors.Run(context.Background(), run, 1, testNow)
		if err != nil {
			t.Fatal(err)
		}
		for unit, path := range paths {
			if called := len(f.seen(path)) > 0; called != spec.Keep(unit) {
				t.Errorf("shard %d: called %s %v, owns %s %v", i, path, called, unit, spec.Keep(unit))
			}
			if spec.Keep(unit) {
				owners[unit]++
			}
		}
		if cov := est.Coverage[0]; cov.Status != model.CoverageOK {
			t.Errorf("shard %d: coverage %+v", i, cov)
		}
		for _, a := range est.Artifacts {
			got = append(got, a.URI)
		}
		backfills += len(est.Backfills)
	}
	want := uris(whole, "")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || backfills != len(whole.Backfills) || len(owners) != len(paths) {
		t.Errorf("shards reported %v (%d backfills), one collection %v (%d); units owned %v", got, backfills, want, len(whole.Backfills), owners)
	}
}
