// Package collectors defines how bfaudit reads a system: a tiny Collector
// interface, optional capabilities, a registry of factories by type name,
// and helpers for retries and coverage shared by every collector.
package collectors

import (
	"time"

	"context"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Collector lists what one system holds and hands it to the sink. It should
// record partial failures with sink.AddError and go on; a returned error
// means the source gave nothing usable and marks it failed.
type Collector interface {
	Collect(ctx context.Context, sink Sink) error
}

// Initializer is implemented by collectors that validate their config and
// build their clients before collecting. Init fills a client field only
// when it is nil, so tests can hand in a fake.
type Initializer interface {
	Init() error
}

// SampleConfigurer is implemented by collectors that document their config
// section; `bfaudit config sample` prints it.
type SampleConfigurer interface {
	SampleConfig() string
}

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

// Settings is the common part of every source entry in the config.
type Settings struct {
	// Type is the registered collector name (records, inventory, airflow...).
	Type string `mapstructure:"type"`
	// Name identifies this instance in coverage and findings; defaults to Type.
	Name string `mapstructure:"name"`
}

// SelectorUser is implemented by collectors that filter a large catalogue
// down to backfill machinery. The selector comes from the config's
// `correlation` section and holds the assets plans declare, so it is set
// after plan sources are read and before Init.
type SelectorUser interface {
	UseSelector(*correlate.Selector)
}

// BaseDirUser is implemented by collectors that read local files: relative
// paths in their config are resolved against the config file's directory,
// which the loader hands them after Decode (so Init must not depend on it).
type BaseDirUser interface {
	SetBaseDir(dir string)
}

// Clocked is implemented by collectors that judge ages (a catch-up start
// date older than N days): the audit hands them its clock, so `--now`
// reaches them too.
type Clocked interface {
	SetClock(now func() time.Time)
}
