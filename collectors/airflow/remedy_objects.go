package airflow

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// Airflow's deployment-wide objects, as the airflow collector names them:
// airflow://<source>/pools/<name>, /connections/<conn_id> and
// /variables/<key>, each name path-escaped.
var airflowObjects = map[string]struct {
	kind   model.Kind
	action string
	step   model.Step
	noun   string
}{
	// A connection holds a credential: removing it closes access, so it
	// belongs with the other revocations. A pool or a variable is
	// machinery left over, removed when the backfill is retired.
	"pools":       {model.KindPool, remedy.DeletePool, model.StepRetired, "pool"},
	"connections": {model.KindCredential, remedy.DeleteConnection, model.StepAccessRevoked, "connection"},
	"variables":   {model.KindVariable, remedy.DeleteVariable, model.StepRetired, "variable"},
}

// ParseAirflowObject reads the collection ("pools", "connections",
// "variables") and name of an Airflow pool, connection or variable URI.
func ParseAirflowObject(a *model.Artifact) (collection, name string, ok bool) {
	segs, ok := model.URISegments(a.URI, "airflow")
	if !ok || len(segs) != 2 || segs[1] == "" {
		return "", "", false
	}
	o, known := airflowObjects[segs[0]]
	if !known || (a.Kind != "" && a.Kind != o.kind) {
		return "", "", false
	}
	return segs[0], segs[1], true
}

// airflowObjectRemoval appends `airflow pools|connections|variables delete
// <name>` for such an artifact and reports whether it was one. None of
// them asks for confirmation.
func airflowObjectRemoval(r *remedy.Remedy, a *model.Artifact) bool {
	coll, name, ok := ParseAirflowObject(a)
	if !ok {
		return false
	}
	o := airflowObjects[coll]
	r.Actions = append(r.Actions, remedy.Action{Name: o.action, Step: o.step, Resolves: true,
		Summary: "delete Airflow " + o.noun + " " + name,
		Shell:   remedy.Command([]string{"airflow", coll, "delete"}, nil, name)})
	switch coll {
	case "pools":
		r.Notes = append(r.Notes, "move tasks still assigned to the pool first: their task instances cannot be scheduled once it is gone")
	case "connections":
		r.Notes = append(r.Notes, "revoke the credential the connection holds in the system it points to as well: deleting the connection only forgets it")
	case "variables":
		r.Notes = append(r.Notes, "check no DAG still reads the variable (Variable.get fails once it is gone)")
	}
	return true
}

// airflowInfer sets the kind of a pool, connection or variable from its
// URI, for a finding known without its artifact.
func airflowInfer(a *model.Artifact) {
	segs, ok := model.URISegments(a.URI, "airflow")
	if !ok || len(segs) != 2 {
		return
	}
	if o, known := airflowObjects[segs[0]]; known {
		a.Kind = o.kind
	}
	if a.Name == "" {
		a.Name = segs[1]
	}
}
