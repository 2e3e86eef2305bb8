package airflow

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func quickstartExport(t *testing.T) *Airflow {
	t.Helper()
	c := New()
	c.ExportDir = "airflow"
	c.Now = func() time.Time { return testNow }
	c.SetSourceName("scheduler")
	if err := c.Init(); err != nil {
		t.Fatal(err)
	}
	c.SetBaseDir("../../examples/quickstart")
	return c
}

// Two shards, by DAG id, report together exactly what one collection does:
// each DAG with its runs and backfill objects, in one shard only.
func TestShardByDAG(t *testing.T) {
	whole := collect(t, quickstartExport(t))
	var got []string
	backfills := 0
	for _, first := range []bool{true, false} {
		c := quickstartExport(t)
		keep := func(id string) bool { return strings.HasPrefix(id, "bf_1234") == first }
		if _, ok := c.Shard(keep); !ok {
			t.Fatal("airflow did not split")
		}
		sink := collect(t, c)
		for _, a := range sink.Artifacts {
			if dag, _, _ := strings.Cut(strings.TrimPrefix(a.URI, "airflow://scheduler/dags/"), "/"); !keep(dag) {
				t.Errorf("shard %v reported %s", first, a.URI)
			}
		}
		got = append(got, uris(sink, "")...)
		backfills += len(sink.Backfills)
	}
	want := uris(whole, "")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || backfills != len(whole.Backfills) {
		t.Errorf("shards reported %v (%d backfills), one collection %v (%d)", got, backfills, want, len(whole.Backfills))
	}
}
