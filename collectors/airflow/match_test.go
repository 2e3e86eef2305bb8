package airflow

import "testing"

// A DAG with two bare tags naming different backfills is tied to the same
// one on every run (the first in sorted order), not to whichever the map
// iteration happens to give: reports and history must not flip.
func TestMatchDAGIsDeterministic(t *testing.T) {
	c := &Airflow{env: env("")}
	d := dagJSON{DagID: "revenue_daily", Tags: []tagJSON{{Name: "bf-2002"}, {Name: "bf-1001"}, {Name: "finance"}}}
	labels := tagLabels(d.Tags)
	for i := 0; i < 100; i++ {
		id, how, ok := c.matchDAG(d, labels)
		if !ok || id != "bf-1001" || how != "label" {
			t.Fatalf("run %d: matchDAG = %q, %q, %v; want bf-1001, label, true", i, id, how, ok)
		}
	}
}
