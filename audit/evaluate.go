package audit

import (
	"runtime/debug"
	"slices"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// Tool names the producer in reports.
var Tool = "bfaudit"

// Audit is an evaluated estate: the report, and the index it was built
// from, kept so the report can be refreshed when a sink changes waivers.
type Audit struct {
	Report *model.Report
	index  *correlate.Index
	// judged is, for each of the report's backfills, what its lifecycle
	// was worked out from (judgedKey): Refresh works a lifecycle out again
	// only when its backfill's findings or their waivers changed since.
	// Working out all of them again after every run's sinks, which mostly
	// change nothing, made 45 MB of garbage for a million artifacts.
	judged []uint64
}

// Index is the correlated estate the report was judged on: what fix
// orders its plan by.
func (a *Audit) Index() *correlate.Index { return a.index }

// Evaluate correlates an estate, runs the rules and builds the report. It
// touches no system: `audit --from estate.json` is this alone.
func Evaluate(est *model.Estate, sel *correlate.Selector, eng *rules.Engine, now time.Time) *Audit {
	return evaluate(est, sel, eng, now, false)
}

// releaseFrom is the estate size from which evaluate collects the
// loading's garbage before the rules run; release is debug.FreeOSMemory
// (variables for tests).
var (
	releaseFrom = 50_000
	release     = debug.FreeOSMemory
)

// LetGo returns the report and lets go of the index it was judged on,
// for a caller that has no more use for it than writing the report. From
// releaseFrom artifacts on, what the index held (and the evaluation's
// garbage) is collected at once, so that the writers reuse that memory
// instead of growing the heap past it: the runtime would otherwise let
// the heap grow to twice what the evaluation left live before collecting.
func (a *Audit) LetGo() *model.Report {
	big := a.index != nil && len(a.index.Artifacts) >= releaseFrom
	a.index = nil
	if big {
		release()
	}
	return a.Report
}

// evaluate is Evaluate; remembered says a history store will carry what
// silent units last held (see correlate.Index.Remembered).
func evaluate(est *model.Estate, sel *correlate.Selector, eng *rules.Engine, now time.Time, remembered bool) *Audit {
	// The index keeps its own copy of the artifacts, tied to backfills;
	// its estate lists those, so the caller's list is not held twice once
	// the caller lets it go (a million artifacts are 270 MB a copy).
	view := *est
	ix := correlate.Correlate(&view, sel)
	ix.Remembered = remembered
	view.Artifacts = ix.Artifacts
	// Likewise the backfills and records: the index keeps its own merged
	// copies (Backfills, AllRecords) and nothing reads the estate's.
	view.Backfills, view.Records = nil, nil
	if len(ix.Artifacts) >= releaseFrom {
		// Decoding left its garbage (the decoder's blocks, the untied
		// list) in the heap the runtime paces its next collection from:
		// twice what was live when decoding ended (110 MB at 100,000
		// artifacts). Collected here, the goal is twice what the index
		// holds, and the evaluation's peak stays under it: 268 MB peak
		// RSS instead of 304 MB for the bench estate (medians of five),
		// for one collection (up to 0.1 s of CPU).
		release()
	}
	findings := eng.Evaluate(ix, now)
	if len(ix.Artifacts) >= releaseFrom {
		// What the rules left (the last of the staged findings) goes
		// before the report's lifecycles and groups are made beside the
		// findings and the index: the assembly is one of the run's
		// peaks (bench/README.md).
		release()
	}
	r, judged := buildReport(ix, findings, now)
	a := &Audit{Report: r, index: ix, judged: judged}
	return a
}

// BuildReport assembles the report from the index and its findings.
func BuildReport(ix *correlate.Index, findings []model.Finding, now time.Time) *model.Report {
	r, _ := buildReport(ix, findings, now)
	return r
}

// buildReport is BuildReport; it also returns the judgedKey of each
// backfill of the report, in its order.
func buildReport(ix *correlate.Index, findings []model.Finding, now time.Time) (*model.Report, []uint64) {
	r := &model.Report{
		Version: model.ReportVersion, Tool: Tool, Now: now.UTC(),
		Findings: findings, Coverage: ix.Estate.Coverage,
	}
	if r.Findings == nil {
		r.Findings = []model.Finding{}
	}
	if r.Coverage == nil {
		r.Coverage = []model.Coverage{}
	}
	groups := groupFindings(findings)
	r.Backfills = make([]model.BackfillReport, 0, len(ix.IDs)+len(ix.Unknown)+len(ix.Records))
	for _, id := range ix.IDs {
		b := ix.Backfills[id]
		fs := groups.of(id)
		r.Backfills = append(r.Backfills, model.BackfillReport{
			Backfill: b, Known: true, Artifacts: len(ix.ByBackfill[id]),
			Findings: countOpen(fs), Lifecycle: rules.Lifecycle(ix, b, fs),
		})
	}
	for _, id := range ix.Unknown {
		r.Backfills = append(r.Backfills, model.BackfillReport{
			Backfill: &model.Backfill{ID: string(id), Key: id}, Artifacts: len(ix.ByBackfill[id]), Findings: countOpen(groups.of(id)),
			Lifecycle: model.Lifecycle{Blockers: []string{"no plan or decision record describes this backfill"}},
		})
	}
	// Records whose backfill has no plan still deserve a line.
	for id, rec := range ix.Records {
		if _, ok := ix.Backfills[id]; ok || slices.Contains(ix.Unknown, id) {
			continue
		}
		b := &model.Backfill{ID: rec.BackfillID, Key: id, Purpose: rec.Purpose, Range: rec.Range, JobID: rec.JobID,
			Status: model.StatusArchived, Owner: ix.BackfillOwner(id)}
		if !rec.Archived() {
			b.Status = model.StatusReplayed
		}
		fs := groups.of(id)
		r.Backfills = append(r.Backfills, model.BackfillReport{Backfill: b, Known: true,
			Artifacts: len(ix.ByBackfill[id]), Findings: countOpen(fs), Lifecycle: rules.Lifecycle(ix, b, fs)})
	}
	sortBackfills(r.Backfills)
	if r.Backfills == nil {
		r.Backfills = []model.BackfillReport{}
	}
	judged := make([]uint64, len(r.Backfills))
	for i := range r.Backfills {
		judged[i] = groups.judgedKey(r.Backfills[i].Backfill.Key)
	}
	Summarize(r, ix)
	return r, judged
}

// Summarize (re)computes the report's summary, e.g. after waivers changed.
func Summarize(r *model.Report, ix *correlate.Index) {
	s := model.Summary{BySeverity: map[string]int{}, ByOwner: map[string]int{}, Complete: true}
	if ix != nil {
		s.Artifacts, s.Records = len(ix.Artifacts), len(ix.AllRecords)
	} else {
		s.Artifacts, s.Records = r.Summary.Artifacts, r.Summary.Records
	}
	s.Backfills = len(r.Backfills)
	for _, sev := range model.Severities() {
		s.BySeverity[sev.String()] = 0
	}
	for _, f := range r.Findings {
		if f.Waived() {
			s.Waived++
			continue
		}
		s.Findings++
		s.BySeverity[f.Severity.String()]++
		owner := f.Owner
		if owner == "" {
			owner = "(unowned)"
		}
		s.ByOwner[owner]++
	}
	s.Complete = model.CoverageComplete(r.Coverage) && len(r.Problems) == 0
	r.Summary = s
}

func countOpen(fs []model.Finding) int {
	n := 0
	for _, f := range fs {
		if !f.Waived() {
			n++
		}
	}
	return n
}

// Refresh recomputes each backfill's open findings and lifecycle, and the
// summary, after a sink changed waivers (an issue closed as accepted on
// GitHub): a waived finding no longer blocks its step.
func (a *Audit) Refresh() {
	r := a.Report
	groups := groupFindings(r.Findings)
	all := len(a.judged) != len(r.Backfills) // backfills came or went: every lifecycle again
	if all {
		a.judged = make([]uint64, len(r.Backfills))
	}
	for i := range r.Backfills {
		br := &r.Backfills[i]
		br.Findings = groups.open(br.Backfill.Key)
		if key := groups.judgedKey(br.Backfill.Key); br.Known && (all || key != a.judged[i]) {
			br.Lifecycle = rules.Lifecycle(a.index, br.Backfill, groups.of(br.Backfill.Key))
			a.judged[i] = key
		}
	}
	Summarize(r, a.index)
}
