package airflow

import (
	"net/url"

	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built and read here only:
//
//	airflow://<source>/dags/<dag id>                    a DAG
//	airflow://<source>/dags/<dag id>/dagRuns/<run id>   a run of a DAG
//	airflow://<source>/pools/<name>                     a pool
//	airflow://<source>/connections/<conn id>            a connection
//	airflow://<source>/variables/<key>                  a variable
//
// Each id is path-escaped; the source is as configured (else the address's
// host). A pool's, connection's or variable's collection is its unit.

func (c *Airflow) dagURI(dagID string) string {
	return "airflow://" + c.authority() + "/dags/" + url.PathEscape(dagID)
}

func (c *Airflow) runURI(dagID, runID string) string {
	return c.dagURI(dagID) + "/dagRuns/" + url.PathEscape(runID)
}

// resourceURI names a pool, connection or variable: unit is its collection.
func (c *Airflow) resourceURI(unit, name string) string {
	return "airflow://" + c.authority() + "/" + unit + "/" + url.PathEscape(name)
}

// resourceKinds is the kind of artifact of each deployment-wide collection.
var resourceKinds = map[string]model.Kind{
	scopePools:       model.KindPool,
	scopeConnections: model.KindCredential,
	scopeVariables:   model.KindVariable,
}

// parseTwoParts reads <collection>/<name> (a DAG, pool, connection or
// variable URI); ok is false for any other shape.
func parseTwoParts(uri string) (collection, name string, ok bool) {
	segs, ok := model.URISegments(uri, "airflow")
	if !ok || len(segs) != 2 {
		return "", "", false
	}
	return segs[0], segs[1], true
}

// ParseAirflowDAG reads a DAG's id back from its URI.
func ParseAirflowDAG(a *model.Artifact) (string, bool) {
	coll, dag, ok := parseTwoParts(a.URI)
	if !ok || coll != "dags" || dag == "" || a.Kind != model.KindSchedulerJob {
		return "", false
	}
	return dag, true
}

// ParseAirflowObject reads the collection ("pools", "connections",
// "variables") and name of an Airflow pool, connection or variable URI.
func ParseAirflowObject(a *model.Artifact) (collection, name string, ok bool) {
	coll, name, ok := parseTwoParts(a.URI)
	kind, known := resourceKinds[coll]
	if !ok || name == "" || !known || (a.Kind != "" && a.Kind != kind) {
		return "", "", false
	}
	return coll, name, true
}
