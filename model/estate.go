package model

import "time"

// EstateVersion is the schema version of a saved estate file.
const EstateVersion = 1

// Estate is everything collected in one run: the inventory an audit judges.
// It is what `bfaudit collect --out` saves and `audit --from` reads back.
type Estate struct {
	Version     int              `json:"version"`
	CollectedAt time.Time        `json:"collected_at,omitzero"`
	Backfills   []Backfill       `json:"backfills"`
	Artifacts   []Artifact       `json:"artifacts"`
	Records     []DecisionRecord `json:"records"`
	Coverage    []Coverage       `json:"coverage"`
	// Edges and Builds are lineage (see Edge); absent when no lineage
	// source ran.
	Edges  []Edge  `json:"edges,omitempty"`
	Builds []Build `json:"builds,omitempty"`
}

// CoverageFor returns the coverage of a source, and whether it is known.
func (e *Estate) CoverageFor(source string) (Coverage, bool) {
	for _, c := range e.Coverage {
		if c.Source == source {
			return c, true
		}
	}
	return Coverage{}, false
}

// Complete reports whether every source answered fully.
func (e *Estate) Complete() bool { return CoverageComplete(e.Coverage) }
