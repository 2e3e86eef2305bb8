package airflow

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// The removal of each of Airflow's deployment-wide objects, by collection.
var airflowObjects = map[string]struct {
	action string
	step   model.Step
	noun   string
}{
	// A connection holds a credential: removing it closes access, so it
	// belongs with the other revocations. A pool or a variable is
	// machinery left over, removed when the backfill is retired.
	scopePools:       {remedy.DeletePool, model.StepRetired, "pool"},
	scopeConnections: {remedy.DeleteConnection, model.StepAccessRevoked, "connection"},
	scopeVariables:   {remedy.DeleteVariable, model.StepRetired, "variable"},
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
	coll, name, ok := parseTwoParts(a.URI)
	if !ok {
		return
	}
	if kind, known := resourceKinds[coll]; known {
		a.Kind = kind
	}
	if a.Name == "" {
		a.Name = name
	}
}
