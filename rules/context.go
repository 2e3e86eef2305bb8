package rules

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/duration"
	"github.com/bfaudit/bfaudit/model"
)

// Context is what a rule's check sees: the correlated estate, the audit's
// time, its parameters, and a way to report.
type Context struct {
	Index *correlate.Index
	Now   time.Time

	rule     *Rule
	params   map[string]string
	severity model.Severity
	out      *[]model.Finding // where findings go, unless blocks is set
	blocks   *findingBlocks
	keyLines KeyLines
	byKind   *kindIndex
}

// Duration reads a duration parameter ("72h", "14d"); the default is used
// when config gave none. Config values are validated at load, so a parse
// failure here means a bad default and panics in tests.
func (c *Context) Duration(name string) time.Duration {
	d, err := duration.Parse(c.param(name))
	if err != nil {
		panic(fmt.Sprintf("rule %s: param %s: %v", c.rule.ID, name, err))
	}
	return d
}

// Int reads an integer parameter.
func (c *Context) Int(name string) int {
	n, err := strconv.Atoi(c.param(name))
	if err != nil {
		panic(fmt.Sprintf("rule %s: param %s: %v", c.rule.ID, name, err))
	}
	return n
}

func (c *Context) param(name string) string {
	if v, ok := c.params[name]; ok {
		return v
	}
	for _, p := range c.rule.Params {
		if p.Name == name {
			return p.Default
		}
	}
	panic(fmt.Sprintf("rule %s: unknown param %s", c.rule.ID, name))
}

// Past reports whether t is set and the audit time has reached it: a
// deadline is over at its exact instant (a condition request.time < t no
// longer holds then).
func (c *Context) Past(t time.Time) bool { return !t.IsZero() && !c.Now.Before(t) }

// Issue is what a check reports; the engine fills in the rest.
type Issue struct {
	Backfill *model.Backfill // may be nil (orphans)
	Artifact *model.Artifact // nil for backfill- or plan-level findings
	Record   *model.DecisionRecord
	Message  string
	Evidence []string
	// Severity is the rung of the rule's ladder (Rule.Ladder) the finding
	// stands on, as the artifact's state and the backfill's classification
	// put it; zero is the rule's default. A severity override in config
	// moves the whole ladder: the rung is taken relative to the default.
	Severity model.Severity
	// Location overrides where the finding points (a plan file and line).
	Location *model.Location
	// Part names which part of a plan a backfill-level finding is about
	// ("elevated_access[1]") when a rule can raise several for one plan;
	// it keeps their fingerprints apart.
	Part string
	// Object names what a finding without an artifact is about (a derived
	// table, a scheduler's setting); it becomes the finding's ArtifactURI.
	Object string
	// Unit is the unit the verdict rests on when it is not the artifact's
	// or the plan's (a scheduler's object, a lineage manifest): a unit that
	// does not answer then keeps the finding open instead of resolving it.
	Unit *model.Location
}

// Report records a finding of the running rule.
func (c *Context) Report(is Issue) {
	f := model.Finding{
		RuleID: c.rule.ID, RuleName: c.rule.Name, Title: c.rule.Title, Step: c.rule.Step,
		Severity: c.severity, Message: is.Message, Evidence: is.Evidence, Remediation: c.rule.Remediation,
	}
	if is.Severity != 0 {
		f.Severity = min(max(f.Severity+is.Severity-c.rule.Severity, model.SeverityInfo), model.SeverityCritical)
	}
	switch {
	case is.Artifact != nil:
		a := is.Artifact
		f.ArtifactURI, f.BackfillID, f.Key, f.Source, f.Scope = a.URI, a.BackfillID, a.Key, a.Source, a.Scope
		f.Owner = c.Index.Owner(a)
	case is.Record != nil:
		f.BackfillID, f.Key = is.Record.BackfillID, is.Record.Key
		f.Owner = c.Index.BackfillOwner(is.Record.Key)
		loc := is.Record.Source
		f.Location, f.Source, f.Scope = &loc, loc.Source, loc.Path
	case is.Backfill != nil:
		f.BackfillID, f.Key = is.Backfill.ID, is.Backfill.Key
		f.Owner = c.Index.BackfillOwner(is.Backfill.Key)
		f.Source = is.Backfill.Source.Source
		if is.Backfill.Source.Path != "" {
			loc := is.Backfill.Source
			f.Location = &loc
			f.Scope = loc.Path
		}
	}
	if is.Backfill != nil && f.BackfillID == "" {
		// An artifact tied to no backfill, reported for one (a dashboard
		// reading its table): the backfill's owner answers for it unless
		// the artifact has its own.
		f.BackfillID, f.Key = is.Backfill.ID, is.Backfill.Key
		if f.Owner == "" {
			f.Owner = c.Index.BackfillOwner(is.Backfill.Key)
		}
	}
	if is.Location != nil {
		f.Location = is.Location
	}
	if is.Unit != nil {
		f.Source, f.Scope = is.Unit.Source, is.Unit.Path
	}
	if f.ArtifactURI == "" && is.Object != "" {
		// About the object, not the plan: reports point at the object
		// unless the rule gave a place in the plan.
		f.ArtifactURI = is.Object
		if is.Location == nil {
			f.Location = nil
		}
	}
	if f.ArtifactURI == "" && is.Part != "" {
		f.ArtifactURI = "plan#" + is.Part
	}
	if f.Location != nil && f.ArtifactURI == "" && is.Record != nil {
		// A record-level finding is about the record file.
		f.ArtifactURI = "record:" + f.Location.Path
	}
	f.Fingerprint = model.Fingerprint(f.RuleID, f.Key, f.ArtifactURI)
	if c.blocks != nil {
		c.blocks.add(c.rule, &f)
		return
	}
	*c.out = append(*c.out, f)
}

// Completed returns when a backfill's replay finished, and whether the time
// is known. A completed backfill without a recorded time counts as long
// finished: cleanup is overdue rather than silently exempt.
func Completed(b *model.Backfill) (time.Time, bool) { return b.Timeline.Completed() }

// GraceOver reports whether a completed backfill's grace period has run out
// at the audit time, with evidence saying why.
func (c *Context) GraceOver(b *model.Backfill, grace time.Duration) (bool, string) {
	if b == nil || !b.Status.Completed() {
		return false, ""
	}
	done, known := Completed(b)
	if !known {
		return true, fmt.Sprintf("backfill %s is %s; completion time unknown", b.ID, b.Status)
	}
	if c.Past(done.Add(grace)) {
		return true, fmt.Sprintf("completed %s, grace %s ended %s", day(done), human(grace), day(done.Add(grace)))
	}
	return false, ""
}

// GraceOverAll is GraceOver for an artifact that served several
// backfills: every one of them must be completed, and the grace runs from
// when the last of them completed (one without a recorded time counts as
// long finished, as in Completed). One backfill reads as GraceOver.
func (c *Context) GraceOverAll(bs []*model.Backfill, grace time.Duration) (bool, string) {
	if len(bs) == 1 {
		return c.GraceOver(bs[0], grace)
	}
	if len(bs) == 0 {
		return false, ""
	}
	var last *model.Backfill
	var lastAt time.Time
	for _, b := range bs {
		if b == nil || !b.Status.Completed() {
			return false, ""
		}
		if t, ok := Completed(b); ok && t.After(lastAt) {
			last, lastAt = b, t
		}
	}
	if last == nil {
		return true, "all its backfills are over; completion times unknown"
	}
	if c.Past(lastAt.Add(grace)) {
		return true, fmt.Sprintf("all its backfills are over; the last, %s, completed %s, grace %s ended %s", last.ID, day(lastAt), human(grace), day(lastAt.Add(grace)))
	}
	return false, ""
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// human prints a duration in days when it is whole days.
func human(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return d.String()
}

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
