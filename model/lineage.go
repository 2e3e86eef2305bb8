package model

import (
	"strings"
	"time"
)

// Lineage is what a backfill's rewrite reaches downstream
// (docs/practice.md, "Downstream tables and consumers": every derived
// table is rebuilt, parents before children). Lineage sources (dbt artifacts, warehouse job
// history, a lineage service) emit edges between tables and what they know
// of each table's last build; both are saved in the estate and merged like
// artifacts. Tables are named by TableRef, so sources that spell a table
// differently meet.

// Edge says Child is derived from Parent: a model selecting from it, a job
// that read Parent and wrote Child.
type Edge struct {
	Parent string `json:"parent"` // TableRef form
	Child  string `json:"child"`  // TableRef form
	System string `json:"system,omitempty"`
	Source string `json:"source,omitempty"` // collector instance; the sink sets it
	// Scope is the unit the edge was read from (a manifest file, a project
	// and region): findings resting on the edge name it, so a unit that
	// did not answer never resolves them.
	Scope string `json:"scope,omitempty"`
	// Via is what makes the edge: a dbt node id, a job id, a lineage process.
	Via string `json:"via,omitempty"`
}

// Build is what a lineage source knows of a table's last build.
type Build struct {
	Table string `json:"table"` // TableRef form
	// Node is what rebuilds the table in its system: a dbt model's name
	// (`dbt build --select <node>`), a scheduler job, a query job's id.
	Node string `json:"node,omitempty"`
	// At is when its last successful build completed; zero when the
	// source knows the table but no successful build of it.
	At time.Time `json:"at,omitzero"`
	// Status is the outcome of the newest attempt, which may be later than
	// At (a rebuild that failed): success, error, skipped, ... as the
	// system says.
	Status string `json:"status,omitempty"`
	Owner  string `json:"owner,omitempty"`
	System string `json:"system,omitempty"`
	Source string `json:"source,omitempty"` // the sink sets it
	Scope  string `json:"scope,omitempty"`
	// BackfillID, when set, says the build was a run of that backfill (a
	// job labelled with its id): the table is one the replay overwrote.
	BackfillID string `json:"backfill_id,omitempty"`
	// View says the table is a view (dbt's materialized: view): it reads
	// its parents when queried and keeps no rows of its own, so it is
	// never stale itself; what is derived from it may be.
	View bool `json:"view,omitempty"`
	// NodeID is the table's id in its system, as its users name it (a dbt
	// node's unique_id: model.shop.orders, source.shop.raw.payments), so
	// a plan's targets may name it that way.
	NodeID string `json:"node_id,omitempty"`
}

// tableSchemes maps a URI scheme to whether its authority is part of the
// table's name: a BigQuery URI's authority is the project; a PostgreSQL
// URI's is the collector instance, which names no table.
var tableSchemes = map[string]bool{
	"bigquery": true, "bq": true, "postgres": false, "postgresql": false,
	"snowflake": true, "redshift": true, "mysql": false, "dbt": true,
}

// TableRef writes a table's name in the one form lineage compares: lower
// case, dot-separated, without quotes, backticks or a system prefix.
//
//	bigquery://proj/ds/orders, `proj`.`ds`.`orders`, proj:ds.orders,
//	bigquery:proj.ds.orders                      → proj.ds.orders
//	postgres://src/db/public.orders, "db"."public"."orders" → db.public.orders
func TableRef(s string) string { return strings.ToLower(TableName(s)) }

// TableName is TableRef with the case kept, as a call naming the table
// needs it: BigQuery's dataset and table names are case-sensitive.
func TableName(s string) string {
	s = strings.TrimSpace(s)
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		keep, known := tableSchemes[strings.ToLower(scheme)]
		if known && !keep {
			if _, after, ok := strings.Cut(rest, "/"); ok {
				rest = after
			}
		}
		s = strings.ReplaceAll(strings.Trim(rest, "/"), "/", ".")
	} else if scheme, rest, ok := strings.Cut(s, ":"); ok && !strings.ContainsAny(scheme, ".`\"") {
		if _, known := tableSchemes[strings.ToLower(scheme)]; known {
			s = rest // bigquery:proj.ds.t, the Data Lineage API's form
		} else {
			s = scheme + "." + rest // proj:ds.t, the bq tool's form
		}
	}
	s = strings.NewReplacer("`", "", `"`, "", "[", "", "]", "").Replace(s)
	parts := strings.Split(s, ".")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ".")
}

// SameTable reports whether two TableRefs name one table: equal, or the
// shorter (of at least two parts: dataset.table, schema.table) ends the
// longer at a dot, as a plan may leave out the project or database.
func SameTable(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return strings.Contains(a, ".") && strings.HasSuffix(b, "."+a)
}
