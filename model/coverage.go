package model

// CoverageStatus says how completely a source answered.
type CoverageStatus string

// Coverage statuses.
const (
	CoverageOK       CoverageStatus = "ok"
	CoverageDegraded CoverageStatus = "degraded" // some calls failed
	CoverageFailed   CoverageStatus = "failed"   // the source gave nothing usable
)

// ScopeError is a failure limited to part of a source (one project, one file).
type ScopeError struct {
	Scope string `json:"scope,omitempty"`
	Error string `json:"error"`
}

// Coverage records how one source answered this run.
type Coverage struct {
	Source    string         `json:"source"`
	System    string         `json:"system"`
	Status    CoverageStatus `json:"status"`
	Error     string         `json:"error,omitempty"`
	Errors    []ScopeError   `json:"errors,omitempty"`
	Artifacts int            `json:"artifacts"`
	Backfills int            `json:"backfills"`
	Records   int            `json:"records"`
}

// Answered reports whether the source answered for scope, so that absence
// of an object there means it is gone. A failed source answered nothing; a
// degraded one answered for every scope except those that failed, and an
// error without a scope taints the whole source.
func (c Coverage) Answered(scope string) bool {
	switch c.Status {
	case CoverageFailed:
		return false
	case CoverageOK, "":
		return true
	}
	for _, e := range c.Errors {
		if e.Scope == "" || e.Scope == scope {
			return false
		}
	}
	return true
}
