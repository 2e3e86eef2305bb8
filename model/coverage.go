package model

import (
	"slices"
	"strings"
)

// CoverageStatus says how completely a source answered.
type CoverageStatus string

// Coverage statuses. bfaudit always writes one of these three. Any other
// status, the empty one included (an estate written by hand or by another
// tool that left it out), is read as failed: the source never said it
// answered, and nothing is concluded gone from a source that did not answer.
// Coverage.State is where that reading is made; every caller asks it, or
// Full, Failed, Answered or CoverageComplete, never Status itself.
const (
	CoverageOK       CoverageStatus = "ok"
	CoverageDegraded CoverageStatus = "degraded" // some units failed
	CoverageFailed   CoverageStatus = "failed"   // the source gave nothing usable
)

// ScopeError is a failure limited to one unit of a source: the scope path
// of a file, a project, a dataset, a namespace, a DAG, a vhost. An empty
// scope is the whole source.
type ScopeError struct {
	Scope string `json:"scope,omitempty"`
	Error string `json:"error"`
}

// Positioned reports whether the error starts with its own unit and a
// position in it ("plans/x.yaml:4: key: ..."): then it names its unit
// already, and a report prints it alone.
func (e ScopeError) Positioned() bool {
	return e.Scope != "" && strings.HasPrefix(e.Error, e.Scope+":")
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
	// Notes are what the source said that is neither an error nor an
	// artifact: a cluster without the PrometheusRule CRD has none to read.
	Notes []string `json:"notes,omitempty"`
	// Reads say what the source read, by unit and kind of object: 85
	// dashboards scanned give no artifact, yet a report must say they were
	// looked at, and how many were read only in part.
	Reads []UnitRead `json:"reads,omitempty"`
	// Shard is set when the estate was collected with --shard: which
	// shard collected this source and whether its units were split.
	Shard *ShardSpec `json:"shard,omitempty"`
	// Lineage is set for a source that reads lineage (which table is
	// built from which, and when each was built): when it does not
	// answer, no backfill's downstream rebuild can be confirmed.
	Lineage bool `json:"lineage,omitempty"`
}

// UnitRead is what one unit of a source read: how many objects of one kind
// (What, plural: "dashboards", "notebooks", "edges") and how many of them
// only in part (a notebook larger than the scan bound, a dashboard with a
// panel that did not parse).
type UnitRead struct {
	Scope   string `json:"scope,omitempty"`
	What    string `json:"what"`
	Read    int    `json:"read"`
	Partial int    `json:"partial,omitempty"`
}

// ReadTotal is what a source read, summed over its units by kind.
type ReadTotal struct {
	What          string
	Read, Partial int
	Units         int
}

// ReadTotals sums c.Reads by kind, most read first and skipped objects
// ("skipped files") last.
func (c Coverage) ReadTotals() []ReadTotal {
	var out []ReadTotal
	at := map[string]int{}
	for _, r := range c.Reads {
		i, ok := at[r.What]
		if !ok {
			i = len(out)
			at[r.What] = i
			out = append(out, ReadTotal{What: r.What})
		}
		out[i].Read += r.Read
		out[i].Partial += r.Partial
		out[i].Units++
	}
	// What a source is about first: the most read, what it skipped last.
	slices.SortStableFunc(out, func(a, b ReadTotal) int {
		if sa, sb := strings.HasPrefix(a.What, "skipped"), strings.HasPrefix(b.What, "skipped"); sa != sb {
			if sa {
				return 1
			}
			return -1
		}
		return b.Read - a.Read
	})
	return out
}

// ReadSummary says in words what a source read ("85 dashboards, 3 only in
// part; 12 alert rules"), or "" when it reported no reads.
func (c Coverage) ReadSummary() string {
	totals := c.ReadTotals()
	if allZero(totals) && len(totals) > 0 {
		return "0 " + totals[0].What // it looked, and found none
	}
	var parts []string
	for _, t := range totals {
		if t.Read == 0 {
			continue // "0 variables" beside what was read says nothing
		}
		s := itoa(t.Read) + " " + countNoun(t.Read, t.What)
		if t.Partial > 0 {
			s += " (" + itoa(t.Partial) + " only in part)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func allZero(ts []ReadTotal) bool {
	for _, t := range ts {
		if t.Read > 0 {
			return false
		}
	}
	return true
}

// countNoun is what, plural, in the singular when n is one ("1 project",
// "1 entry").
func countNoun(n int, what string) string {
	switch {
	case n != 1:
		return what
	case strings.HasSuffix(what, "ies"):
		return strings.TrimSuffix(what, "ies") + "y"
	case strings.HasSuffix(what, "ss"):
		return what
	}
	return strings.TrimSuffix(what, "s")
}

// State is how the source answered, as bfaudit reads it: ok only when the
// status says ok and no error is recorded, degraded when it says ok or
// degraded but errors are recorded, failed otherwise, including an empty
// or unknown status (see the constants).
func (c Coverage) State() CoverageStatus {
	switch c.Status {
	case CoverageOK:
		if c.Error == "" && len(c.Errors) == 0 {
			return CoverageOK
		}
		return CoverageDegraded
	case CoverageDegraded:
		return CoverageDegraded
	}
	return CoverageFailed
}

// Full reports whether the source answered for every unit.
func (c Coverage) Full() bool { return c.State() == CoverageOK }

// Failed reports whether the source answered for no unit at all.
func (c Coverage) Failed() bool { return c.State() == CoverageFailed }

// UnitErrors are the errors a report lists under the source's own Error:
// Errors without the whole-source entry that says the same as Error (a
// source that failed records its error in both), so that a reader sees
// each error once.
func (c Coverage) UnitErrors() []ScopeError {
	out := make([]ScopeError, 0, len(c.Errors))
	for _, e := range c.Errors {
		if e.Scope == "" && e.Error == c.Error {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Answered reports whether the source answered for the unit at scope, so
// that absence of an object there means it is gone: the source did not
// fail, and no error names that unit or any unit above it. An error below
// it (one DAG of a listing that answered) does not count against it.
func (c Coverage) Answered(scope string) bool {
	if c.Failed() {
		return false
	}
	for _, e := range c.Errors {
		if ScopeWithin(scope, e.Scope) {
			return false
		}
	}
	return true
}

// CoverageComplete reports whether every source of a run answered fully.
// A run with no source is complete here (nothing failed); Answers.All,
// which decides what may be concluded gone, asks for at least one source.
func CoverageComplete(cov []Coverage) bool {
	for _, c := range cov {
		if !c.Full() {
			return false
		}
	}
	return true
}

// ScopeWithin reports whether scope is the unit parent or lies under it.
// Scope paths are segments joined by "/" (see JoinScope); a file path is
// one already, so a failed directory covers every file in it. The empty
// parent is the whole source.
func ScopeWithin(scope, parent string) bool {
	parent = strings.TrimSuffix(parent, "/")
	if parent == "" {
		return true
	}
	return scope == parent || strings.HasPrefix(scope, parent+"/")
}

// JoinScope builds a scope path from unit names (a project and a dataset;
// a DAG and "runs"). A name holding "/" (a RabbitMQ vhost such as "/") is
// escaped, so it stays one segment.
func JoinScope(parts ...string) string {
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p == "" {
			continue
		}
		out = append(out, escapeSegment(p))
	}
	return strings.Join(out, "/")
}

func escapeSegment(s string) string {
	if !strings.ContainsAny(s, "/%") {
		return s
	}
	return strings.NewReplacer("%", "%25", "/", "%2F").Replace(s)
}

// Unit names one answering part of one source, for messages.
func Unit(source, scope string) string {
	switch {
	case source == "" && scope == "":
		return "every source"
	case source == "":
		return scope
	case scope == "":
		return source
	}
	return source + " / " + scope
}

// Answers is the one definition of what answered this run, built from the
// run's coverage. Rules, the lifecycle, history, GitHub and Slack all ask
// it, so no two parts of bfaudit can disagree about what may be ticked,
// closed or resolved.
type Answers struct {
	bySource map[string]Coverage
	all      bool
}

// AnswersOf indexes a run's coverage.
func AnswersOf(cov []Coverage) Answers {
	a := Answers{bySource: make(map[string]Coverage, len(cov)), all: len(cov) > 0 && CoverageComplete(cov)}
	for _, c := range cov {
		a.bySource[c.Source] = c
	}
	return a
}

// All reports whether there was at least one source and every source
// answered fully.
func (a Answers) All() bool { return a.all }

// Answered reports whether source answered for scope. A source missing from
// the run answered nothing; the empty source means the whole estate.
func (a Answers) Answered(source, scope string) bool {
	if source == "" {
		return a.all
	}
	c, ok := a.bySource[source]
	return ok && c.Answered(scope)
}

// Described reports whether this run read b's description from the unit
// that describes it: b is not a scheduler's evidence (which says what ran,
// not what was planned) nor a description the history store put back
// (LastKnown), and that unit answered. The history store restores, and the
// GitHub sink keeps its issue as it was, for exactly the backfills this is
// false for.
func (a Answers) Described(b Backfill) bool {
	return b.Origin != OriginScheduler && b.LastKnown.IsZero() && a.Answered(b.Source.Source, b.Source.Path)
}

// Basis is what a finding's verdict rests on: the unit whose evidence it
// came from, the unit that describes its backfill (plan or record), and
// whether it is a verdict on the whole backfill drawn from every source
// (no artifact: "missing decision record", "overdue and still running").
type Basis struct {
	Source, Scope string
	// DescribedBy is the backfill's plan or record; zero when unknown. A
	// backfill whose describing unit did not answer has lost the facts
	// (classification, status, expiry) every finding about it was judged on.
	DescribedBy Location
	// DescribedUnknown marks a basis whose describing unit is not on record
	// (older history rows): then every source must answer.
	DescribedUnknown bool
	Whole            bool
}

// BasisOf says what f rests on; b is its backfill as reported this run
// (nil when the backfill is gone from the run).
func BasisOf(f *Finding, b *BackfillReport) Basis {
	bs := Basis{Source: f.Source, Scope: f.Scope, Whole: IsWholeBackfill(f.ArtifactURI)}
	switch {
	case b == nil:
		bs.DescribedUnknown = true
	case b.Known:
		bs.DescribedBy = b.Backfill.Source
	}
	return bs
}

// IsWholeBackfill reports whether a finding's artifact URI makes it a
// verdict on the whole backfill rather than on one object.
func IsWholeBackfill(artifactURI string) bool {
	return artifactURI == "" || strings.HasPrefix(artifactURI, "record:")
}

// MayResolve reports whether a finding seen before and missing now may be
// concluded resolved: every unit it rests on answered this run.
func (a Answers) MayResolve(b Basis) bool { return len(a.Unanswered(b)) == 0 }

// Unanswered names, sorted and once each, the units a finding rests on that
// did not answer this run; empty when it may be resolved.
func (a Answers) Unanswered(b Basis) []string {
	var out []string
	add := func(u string) {
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	if !a.Answered(b.Source, b.Scope) {
		a.addFailed(add, b.Source, b.Scope)
	}
	switch {
	case b.DescribedUnknown || b.Whole:
		if !a.all {
			a.addFailed(add, "", "")
		}
	case b.DescribedBy.Source != "":
		if !a.Answered(b.DescribedBy.Source, b.DescribedBy.Path) {
			a.addFailed(add, b.DescribedBy.Source, b.DescribedBy.Path)
		}
	}
	slices.Sort(out)
	return out
}

// addFailed adds the units that failed for source/scope: the errors at or
// above scope, the whole source, or (for the empty source) every unit of
// every source that did not answer.
func (a Answers) addFailed(add func(string), source, scope string) {
	if source == "" {
		if len(a.bySource) == 0 {
			add("every source (none ran)")
		}
		for _, c := range a.bySource {
			for _, u := range c.UnansweredUnits() {
				add(u)
			}
		}
		return
	}
	c, ok := a.bySource[source]
	if !ok {
		add(source + " (did not run)")
		return
	}
	if c.Failed() {
		add(source)
		return
	}
	for _, e := range c.Errors {
		if ScopeWithin(scope, e.Scope) {
			add(Unit(source, e.Scope))
		}
	}
}

// UnansweredUnits names the units of c that did not answer, as reports
// name them: the whole source when it failed, else each unit with an
// error ("plans / records/bf-1234.md"); none when it answered fully.
func (c Coverage) UnansweredUnits() []string {
	if c.Failed() {
		return []string{c.Source}
	}
	out := make([]string, 0, len(c.Errors))
	for _, e := range c.Errors {
		out = append(out, Unit(c.Source, e.Scope))
	}
	return out
}
