// Package preview answers, before a backfill runs, what its plan will
// touch and need: the tables it rewrites, the tables to rebuild
// afterwards and their owners, who has not been told, how the scheduler
// will really run it, and which open backfills it collides with. It reads
// nothing itself: it judges an estate collected with the plans in it,
// with the audit's own questions (correlate.Index.DownstreamOwners for
// BF114, model.SchedulerView.Differences for BF115).
package preview

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Result is the preview of every plan given, and whether the estate it
// rests on is whole.
type Result struct {
	Now   time.Time `json:"now"`
	Plans []Plan    `json:"plans"`
	// Incomplete names each source that did not answer fully, and why:
	// what it did not say is missing from every list below.
	Incomplete []string `json:"incomplete"`
	// Estimators name the configured sources that can dry-run a plan
	// (collectors.Estimator): none, and each plan's cost is unknown.
	Estimators []string `json:"estimators"`
}

// Plan is one plan's preview.
type Plan struct {
	ID           string         `json:"id"`
	File         string         `json:"file"`
	Job          string         `json:"job,omitempty"`
	Range        model.Interval `json:"range,omitzero"`
	CostEstimate string         `json:"cost_estimate,omitempty"` // as the plan gives it, not checked
	Rewrites     []Target       `json:"rewrites"`
	// Lineage is false when no configured source reads lineage: Rebuild
	// and Tell are then unknown, not empty.
	Lineage bool `json:"lineage"`
	// LineageGaps name the lineage sources that did not answer fully:
	// Rebuild and Tell may then be short.
	LineageGaps []string    `json:"lineage_gaps,omitempty"`
	Rebuild     []Table     `json:"rebuild"`
	Tell        []Notice    `json:"tell"`
	Scheduler   *Scheduler  `json:"scheduler,omitempty"`
	Collisions  []Collision `json:"collisions"`
	// Cost is what each warehouse said of the plan: the partitions it
	// rewrites and the dry runs of its queries.
	Cost []model.Estimate `json:"cost"`
	// Findings are the governance rules' findings on the plan, judged
	// against what the sources said (BF114-BF116 among them).
	Findings []model.Finding `json:"findings"`
}

// Target is one of the plan's targets and the lineage tables it names.
type Target struct {
	Target string   `json:"target"`
	Tables []string `json:"tables,omitempty"`
}

// Table is a table to rebuild after the replay, in rebuild order.
type Table struct {
	Table string   `json:"table"`
	Owner string   `json:"owner,omitempty"`
	Team  string   `json:"team,omitempty"`
	Chain []string `json:"chain"` // from a target to the table
}

// Notice is an owner of downstream tables missing from the plan's
// notified, with the team they belong to.
type Notice struct {
	Team   string   `json:"team,omitempty"`
	Owner  string   `json:"owner"`
	Tables []string `json:"tables"`
}

// Scheduler is how the scheduler will run the plan's job.
type Scheduler struct {
	Job           string `json:"job"`
	Found         bool   `json:"found"` // false: no scheduler reported the job
	URI           string `json:"uri,omitempty"`
	MaxActiveRuns string `json:"max_active_runs,omitempty"`
	Pool          string `json:"pool,omitempty"`
	Catchup       string `json:"catchup,omitempty"`
	Schedule      string `json:"schedule,omitempty"`
	// Differences are the plan's settings the job runs otherwise (BF115).
	Differences []model.Difference `json:"differences"`
	// Active are the backfill objects already running or paused on the job,
	// ActiveRuns its runs running or queued now.
	Active     []Active `json:"active"`
	ActiveRuns int      `json:"active_runs"`
}

// Active is a backfill already running (or paused) on the plan's job.
type Active struct {
	Backfill string              `json:"backfill"`
	Range    model.Interval      `json:"range,omitzero"`
	View     model.SchedulerView `json:"view"`
}

// Collision is another open backfill over an interval that overlaps the
// plan's, rewriting one of its tables or replaying the same job (two
// replays of one job over the same days race each other whatever their
// targets say).
type Collision struct {
	Backfill string         `json:"backfill"`
	Status   model.Status   `json:"status,omitempty"`
	Range    model.Interval `json:"range,omitzero"`
	Tables   []string       `json:"tables"`
	Job      string         `json:"job,omitempty"` // the job both replay, when they do
}

// Build previews plans against the estate ix indexes, which must hold
// them (the CLI adds them to what the sources gave). teams names each
// owner's team.
func Build(ix *correlate.Index, plans []model.Backfill, teams model.Teams, now time.Time) Result {
	r := Result{Now: now, Plans: []Plan{}, Incomplete: []string{}, Estimators: []string{}}
	for _, c := range ix.Estate.Coverage {
		if !c.Full() {
			r.Incomplete = append(r.Incomplete, coverageText(c))
		}
	}
	lineage := slices.ContainsFunc(ix.Estate.Coverage, func(c model.Coverage) bool { return c.Lineage })
	var gaps []string
	for _, c := range ix.Estate.Coverage {
		if c.Lineage && !c.Full() {
			gaps = append(gaps, c.Source)
		}
	}
	for i := range plans {
		p := plan(ix, &plans[i], teams, lineage)
		p.LineageGaps = gaps
		r.Plans = append(r.Plans, p)
	}
	return r
}

func plan(ix *correlate.Index, b *model.Backfill, teams model.Teams, lineage bool) Plan {
	l := ix.Lineage()
	p := Plan{ID: b.ID, File: b.Source.Path, Job: b.JobID, Range: b.Range, CostEstimate: b.CostEstimate, Lineage: lineage,
		Rewrites: []Target{}, Rebuild: []Table{}, Tell: []Notice{}, Collisions: []Collision{},
		Cost: b.Estimates, Findings: []model.Finding{}}
	if p.Cost == nil {
		p.Cost = []model.Estimate{}
	}
	for _, t := range b.Targets {
		p.Rewrites = append(p.Rewrites, Target{Target: t, Tables: l.Tables(t)})
	}
	down := ix.DownstreamOwners(b.Targets...)
	for _, d := range down {
		p.Rebuild = append(p.Rebuild, Table{Table: d.Table, Owner: d.Owner, Team: teams.Name(d.Owner), Chain: d.Chain})
	}
	// Everyone not told, whether or not the plan says consumers were
	// notified yet: before the replay is when telling them is cheap.
	byOwner := map[string]*Notice{}
	for _, d := range correlate.Unnotified(down, b.Notified) {
		n := byOwner[d.Owner]
		if n == nil {
			n = &Notice{Team: teams.Name(d.Owner), Owner: d.Owner}
			byOwner[d.Owner] = n
		}
		n.Tables = append(n.Tables, d.Table)
	}
	for _, n := range byOwner {
		p.Tell = append(p.Tell, *n)
	}
	slices.SortFunc(p.Tell, func(a, b Notice) int {
		return cmp(a.Team, b.Team, a.Owner, b.Owner)
	})
	if b.JobID != "" {
		p.Scheduler = scheduler(ix, b)
	}
	p.Collisions = collisions(ix, b)
	return p
}

// scheduler reads the plan's job as the scheduler reports it: the job's
// own settings, compared with the plan as BF115 compares a running
// backfill's, and what already runs on it.
func scheduler(ix *correlate.Index, b *model.Backfill) *Scheduler {
	s := &Scheduler{Job: b.JobID, Differences: []model.Difference{}, Active: []Active{}}
	for i := range ix.Artifacts {
		a := &ix.Artifacts[i]
		if a.Kind != model.KindSchedulerJob || a.Name != b.JobID {
			continue
		}
		s.Found, s.URI = true, a.URI
		s.MaxActiveRuns, s.Pool = a.Attr(model.AttrMaxActiveRuns), a.Attr(model.AttrPool)
		s.Catchup, s.Schedule = a.Attr(model.AttrCatchup), a.Attr(model.AttrSchedule)
		n, _ := strconv.Atoi(s.MaxActiveRuns)
		s.Differences = append(s.Differences, model.SchedulerView{MaxActiveRuns: n, Pool: s.Pool}.Differences(b)...)
		break
	}
	for i := range ix.Artifacts {
		a := &ix.Artifacts[i]
		if s.Found && a.Kind == model.KindJobRun && strings.HasPrefix(a.URI, s.URI+"/") {
			if st := a.Attr(model.AttrRunState); st == "running" || st == "queued" {
				s.ActiveRuns++
			}
		}
	}
	for _, id := range ix.IDs {
		o := ix.Backfills[id]
		if o.JobID != b.JobID || model.ParseID(o.ID) == model.ParseID(b.ID) {
			continue
		}
		for _, v := range o.Scheduled {
			if v.Running || v.Paused {
				s.Active = append(s.Active, Active{Backfill: o.ID, Range: o.Range, View: v})
			}
		}
	}
	return s
}

// collisions are the other open backfills (not yet archived or retired)
// over an overlapping interval whose tables meet the plan's or that replay
// the same job. An interval
// not known on either side is taken as overlapping: it cannot be ruled
// out.
func collisions(ix *correlate.Index, b *model.Backfill) []Collision {
	l := ix.Lineage()
	mine := tables(l, b.Targets)
	out := []Collision{}
	for _, id := range ix.IDs {
		o := ix.Backfills[id]
		if id == model.ParseID(b.ID) || o.Status == model.StatusArchived || o.Status == model.StatusRetired || !overlap(b.Range, o.Range) {
			continue
		}
		var shared []string
		for _, t := range tables(l, l.Targets(o)) {
			if slices.ContainsFunc(mine, func(m string) bool { return model.SameTable(m, t) }) && !slices.Contains(shared, t) {
				shared = append(shared, t)
			}
		}
		job := ""
		if b.JobID != "" && o.JobID == b.JobID {
			job = b.JobID
		}
		if len(shared) > 0 || job != "" {
			out = append(out, Collision{Backfill: o.ID, Status: o.Status, Range: o.Range, Tables: shared, Job: job})
		}
	}
	return out
}

// tables names targets as the lineage does where it knows them, else in
// TableRef form.
func tables(l *correlate.Lineage, targets []string) []string {
	var out []string
	for _, t := range targets {
		if ts := l.Tables(t); len(ts) > 0 {
			out = append(out, ts...)
		} else if ref := model.TableRef(t); ref != "" {
			out = append(out, ref)
		}
	}
	return out
}

// overlap reports whether two half-open intervals share an instant; an
// unknown one overlaps everything.
func overlap(a, b model.Interval) bool {
	if a.IsZero() || b.IsZero() {
		return true
	}
	return a.Start.Before(b.End) && b.Start.Before(a.End)
}

func coverageText(c model.Coverage) string {
	if c.Failed() {
		return fmt.Sprintf("source %s (%s) failed: %s", c.Source, c.System, c.Error)
	}
	var parts []string
	for _, e := range c.Errors {
		scope := e.Scope
		if scope == "" {
			scope = "the whole source"
		}
		parts = append(parts, scope+": "+e.Error)
	}
	return fmt.Sprintf("source %s (%s) answered in part: %s", c.Source, c.System, strings.Join(parts, "; "))
}

func cmp(a1, b1, a2, b2 string) int {
	if a1 != b1 {
		return strings.Compare(a1, b1)
	}
	return strings.Compare(a2, b2)
}
