package dbt

import "github.com/bfaudit/bfaudit/model"

// latest keeps, per node, its newest successful build and its newest
// attempt across every run read, with the run each came from.
type latest struct{ nodes map[string]*seen }

type seen struct {
	success, attempt Result
	successAt        string // scope of the run of the success
	attemptAt        string
}

func newLatest() *latest { return &latest{nodes: map[string]*seen{}} }

func (l *latest) add(scope string, run *RunResults) {
	for id, r := range run.Results {
		s := l.nodes[id]
		if s == nil {
			s = &seen{}
			l.nodes[id] = s
		}
		if r.Status == "success" && r.At.After(s.success.At) {
			s.success, s.successAt = r, scope
		}
		if !r.At.Before(s.attempt.At) {
			s.attempt, s.attemptAt = r, scope
		}
	}
}

// build is a relation's Build: At is its newest successful build (zero
// when no run read built it), Status the outcome of its newest attempt,
// which may be newer than At (an error after the last success). The
// scope is the run At came from, else the run of the attempt, else the
// manifest's.
func (l *latest) build(r Relation, manifestScope string) model.Build {
	b := model.Build{Table: r.Table, Node: r.Select, NodeID: r.UniqueID, View: r.View, Owner: r.Owner, System: System, Scope: manifestScope}
	s := l.nodes[r.UniqueID]
	if s == nil {
		return b
	}
	b.Status = s.attempt.Status
	b.Scope = s.attemptAt
	if !s.success.At.IsZero() {
		b.At, b.Scope = s.success.At, s.successAt
	}
	return b
}
