// Package collectors defines how bfaudit reads a system: a tiny Collector
// interface, optional capabilities, a registry of factories by type name,
// and helpers for retries and coverage shared by every collector.
package collectors

import (
	"github.com/bfaudit/bfaudit/model"
)

// Sink receives what a collector found. It is safe for concurrent use.
type Sink interface {
	AddBackfill(model.Backfill)
	AddArtifact(model.Artifact)
	AddRecord(model.DecisionRecord)
	// AddEdge and AddBuild take lineage (model.Edge): which table is
	// derived from which, and each table's last build.
	AddEdge(model.Edge)
	AddBuild(model.Build)
	// AddError records a failure limited to scope (a project, a file, a
	// vhost); an empty scope taints the whole source. The source is then
	// reported as degraded, and nothing in that scope is concluded gone.
	AddError(scope string, err error)
	// AddRead records that the unit at scope read n objects of one kind
	// (what, plural: "dashboards", "edges"), partial of them only in part.
	// Every unit says what it read, findings or not, so a report can tell
	// "read 85 dashboards, none tied to a backfill" from "read nothing".
	// Calls for one scope and kind add up.
	AddRead(scope, what string, n, partial int)
}

// Noter is implemented by collectors with something to say about a run
// that is not an error (a cluster that does not serve a resource type);
// the notes go into the source's coverage, so reports show them.
type Noter interface {
	Notes() []string
}

// LineageReader is implemented by collectors that read lineage (AddEdge,
// AddBuild). ReadsLineage, asked after Init, says whether this source is
// configured to: its coverage then carries Lineage, so a source that did
// not answer keeps every backfill's verification open.
type LineageReader interface {
	ReadsLineage() bool
}

// Settings is the common part of every source entry in the config.
type Settings struct {
	// Type is the registered collector name (records, inventory, airflow...).
	Type string `mapstructure:"type"`
	// Name identifies this instance in coverage and findings; defaults to Type.
	Name string `mapstructure:"name"`
}
