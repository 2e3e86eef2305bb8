package airflow

import (
	"slices"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a URI, the commands and the fix action read
// back to the same parts, for every shape and whatever the names hold; an
// empty name is never read as an object to act on.
func TestURIRoundTrip(t *testing.T) {
	c := &Airflow{}
	c.env.Source = "airflow.example:8080"
	for i, name := range remedytest.HostileNames {
		dag := &model.Artifact{Kind: model.KindSchedulerJob, URI: c.dagURI(name)}
		if got, ok := ParseAirflowDAG(dag); ok != (name != "") || got != name {
			t.Errorf("DAG %q read back as %q (%v)", dag.URI, got, ok)
		}
		// A run is never read as its DAG (its commands act on the DAG).
		runID := remedytest.HostileNames[(i+1)%len(remedytest.HostileNames)]
		run := c.runURI(name, runID)
		if segs, ok := model.URISegments(run, "airflow"); !ok || !slices.Equal(segs, []string{"dags", name, "dagRuns", runID}) {
			t.Errorf("run %q read back as %q (%v)", run, segs, ok)
		}
		if _, ok := ParseAirflowDAG(&model.Artifact{Kind: model.KindSchedulerJob, URI: run}); ok {
			t.Errorf("run %q read as a DAG", run)
		}
		for coll, kind := range resourceKinds {
			a := &model.Artifact{Kind: kind, URI: c.resourceURI(coll, name)}
			gotColl, got, ok := ParseAirflowObject(a)
			if ok != (name != "") || got != name || (ok && gotColl != coll) {
				t.Errorf("%s %q read back as %q %q (%v)", coll, a.URI, gotColl, got, ok)
			}
		}
	}
}
