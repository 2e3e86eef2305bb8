// Package fix turns an audit's findings into the cleanup of a backfill, in
// the order of docs/practice.md ("Close the loop in order"): a plan of
// remedies step by step, where a step whose earlier steps are not done
// waits, with the reason. It renders the plan as an sh script or JSON, and
// applies its safe part through the systems' APIs.
package fix

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

// PlanVersion is the schema version of the JSON plan.
const PlanVersion = 1

// Plan is the cleanup of one or more backfills.
type Plan struct {
	Version int       `json:"version"`
	Now     time.Time `json:"now"`
	// Due says the plan was made with --due: items of findings not due,
	// not announced or waived carry a hold.
	Due       bool           `json:"due,omitempty"`
	Backfills []BackfillPlan `json:"backfills"`
}

// BackfillPlan is one backfill's cleanup, step by step.
type BackfillPlan struct {
	ID string `json:"id"`
	// Known is false for a backfill no plan or record describes: its
	// machinery has no lifecycle to order its removal by.
	Known     bool            `json:"known"`
	Lifecycle model.Lifecycle `json:"lifecycle"`
	Steps     []StepPlan      `json:"steps"`
}

// StepPlan is what one lifecycle step asks for.
type StepPlan struct {
	Step model.Step `json:"step"`
	// Waits says why the step's commands must not run yet: an earlier step
	// is blocked by something the plan does not clear. Empty: they may.
	Waits string `json:"waits,omitempty"`
	// Ahead, for the access-revoked step, says which earlier step is not
	// done yet and why: access goes first once the replay has finished
	// (see securityFirst), so the step runs ahead of it.
	Ahead string `json:"ahead,omitempty"`
	Items []Item `json:"items"`

	// relies says the step's commands are ready only because the earlier
	// steps' commands of the same plan are counted as done: in the script
	// they are skipped when one of those did not run.
	relies bool
}

// Item is one command or human act, for one finding.
type Item struct {
	RuleID      string         `json:"rule_id"`
	Severity    model.Severity `json:"severity"`
	Fingerprint string         `json:"fingerprint"`
	BackfillID  string         `json:"backfill_id,omitempty"`
	ArtifactURI string         `json:"artifact_uri,omitempty"`
	Source      string         `json:"source,omitempty"`
	Message     string         `json:"message"`
	// Action is the command, or Human what a person has to do.
	Action       *remedy.Action `json:"action,omitempty"`
	Human        *remedy.Human  `json:"human,omitempty"`
	Alternatives []string       `json:"alternatives,omitempty"`
	Notes        []string       `json:"notes,omitempty"`
	// Waits, when set, holds this item back whatever its step: its
	// backfill is unknown, so nothing orders its removal, or a by-hand
	// check on its artifact is still open (see holdForChecks).
	Waits string `json:"waits,omitempty"`
	// Hold, under --due, holds this item back for its finding: not due,
	// its owner not told in time, or waived (see DueGate).
	Hold *Hold `json:"hold,omitempty"`

	artifact *model.Artifact
}

// Ready reports whether the item is a command that may run now.
func (it Item) Ready(step StepPlan) bool {
	return it.Action != nil && step.Waits == "" && it.Waits == "" && it.Hold == nil
}

// Artifact is the artifact the item acts on, as audited (nil for none).
func (it Item) Artifact() *model.Artifact { return it.artifact }

// Inputs are what a plan is built from: an audit's report and the index
// it was built from.
type Inputs struct {
	Report *model.Report
	Index  *correlate.Index
	// Accepted are fingerprints accepted outside the config (an issue
	// closed as accepted on GitHub), as the history store last recorded
	// them: waived like config waivers.
	Accepted map[string]bool
	// RecordsDir and PlansDir say where the records source reads, for
	// the templates.
	RecordsDir, PlansDir string
	// Due, when set (`fix --due`), holds the commands of findings not due
	// or not announced, and lists waived findings, held, with the reason.
	Due *DueGate

	untied map[[2]string]*model.Artifact // set by NewPlan
}

// Runs says whether an action will run in this mode: every action in a
// script, only allowed ones under --apply. A step waits for an earlier
// one only when what blocks the earlier one is not cleared by a command
// that runs before it.
type Runs func(remedy.Action) bool

// NewPlan orders the remedies of the open findings of backfill (every
// backfill with open findings when empty) by the lifecycle.
func NewPlan(in Inputs, backfill string, runs Runs) (*Plan, error) {
	p := &Plan{Version: PlanVersion, Now: in.Report.Now, Due: in.Due != nil}
	in.untied = untiedArtifacts(in.Index)
	open := map[model.BackfillID][]model.Finding{}
	waived := map[model.BackfillID][]model.Finding{} // listed under --due only
	for _, f := range in.Report.Findings {
		switch {
		case len(f.Unread) > 0:
		case f.Waived() || in.Accepted[f.Fingerprint]:
			if in.Due != nil {
				waived[f.Key] = append(waived[f.Key], f)
			}
		default:
			open[f.Key] = append(open[f.Key], f)
		}
	}
	want := model.ParseID(backfill)
	found := false
	for _, br := range in.Report.Backfills {
		id := br.Backfill.Key
		if backfill != "" && id != want {
			continue
		}
		found = true
		if len(open[id]) == 0 && len(waived[id]) == 0 && backfill == "" {
			continue
		}
		p.Backfills = append(p.Backfills, in.backfillPlan(br, open[id], waived[id], runs))
	}
	if backfill == "" && len(open[""])+len(waived[""]) > 0 {
		// Findings about the config itself (waivers, user rules).
		p.Backfills = append(p.Backfills, in.backfillPlan(model.BackfillReport{Backfill: &model.Backfill{}, Known: true,
			Lifecycle: model.Lifecycle{Done: true}}, open[""], waived[""], runs))
	}
	if backfill != "" && !found {
		return nil, fmt.Errorf("backfill %s: no plan, record or artifact in the audit names it", backfill)
	}
	return p, nil
}

// backfillPlan orders the items of a backfill's open findings, and under
// --due those of its waived ones, held (they block nothing: the lifecycle
// counts open findings only).
func (in Inputs) backfillPlan(br model.BackfillReport, findings, waived []model.Finding, runs Runs) BackfillPlan {
	bp := BackfillPlan{ID: br.Backfill.ID, Known: br.Known, Lifecycle: br.Lifecycle}
	var b *model.Backfill
	var rec *model.DecisionRecord
	if br.Known && br.Backfill.ID != "" {
		b = br.Backfill
		rec = in.Index.Record(br.Backfill.Key)
	}
	byURI := map[string]*model.Artifact{}
	for _, a := range in.Index.ArtifactsOf(br.Backfill.Key) {
		byURI[a.URI] = a
	}
	var items []Item
	for i, f := range append(slices.Clone(findings), waived...) {
		a := byURI[f.ArtifactURI]
		if a == nil && f.ArtifactURI != "" {
			a = in.untied[[2]string{f.Source, f.ArtifactURI}]
		}
		its := in.itemsOf(f, a, b, rec)
		var h *Hold
		switch {
		case i >= len(findings):
			h = waivedHold(f)
		case in.Due != nil:
			h = in.Due.hold(f)
		}
		for j := range its {
			if h != nil && (h.Status == StatusWaived || held(its[j])) {
				its[j].Hold = h
			}
		}
		items = append(items, its...)
	}
	holdForChecks(items)
	if !br.Known && br.Backfill.ID != "" {
		for i := range items {
			items[i].Waits = fmt.Sprintf("no plan or decision record describes %s: make sure nobody needs it first, or write its plan", br.Backfill.ID)
		}
	}
	steps := map[model.Step][]Item{}
	for _, it := range items {
		steps[itemStep(it)] = append(steps[itemStep(it)], it)
	}
	// Findings cleared by commands that run before a step, step by step:
	// a step waits while the lifecycle with those findings gone is still
	// blocked before it.
	cleared := map[string]bool{}
	var before model.Lifecycle // the lifecycle with no command run
	if b != nil {
		before = rules.Lifecycle(in.Index, b, findings)
	}
	for _, s := range append([]model.Step{model.StepPlan}, model.Steps()...) {
		its := steps[s]
		if len(its) == 0 {
			continue
		}
		sp := StepPlan{Step: s, Items: its}
		if b != nil && s > model.StepVerified {
			left := slices.DeleteFunc(slices.Clone(findings), func(f model.Finding) bool { return cleared[f.Fingerprint] })
			lc := rules.Lifecycle(in.Index, b, left)
			if lc.Reached < s-1 {
				blocked := fmt.Sprintf("step %s is not done: %s", lc.Next, strings.Join(lc.Blockers, "; "))
				if securityFirst(s) && b.Status.Completed() {
					sp.Ahead = blocked
				} else {
					sp.Waits = blocked
				}
			}
			sp.relies = sp.Waits == "" && sp.Ahead == "" && before.Reached < s-1 && !(securityFirst(s) && b.Status.Completed())
		}
		sortItems(sp.Items)
		bp.Steps = append(bp.Steps, sp)
		for _, it := range its {
			if it.Ready(sp) && it.Action.Resolves && runs(*it.Action) {
				cleared[it.Fingerprint] = true
			}
		}
	}
	return bp
}

// holdForChecks holds back the commands on an artifact while a by-hand
// check on it is open (a Human with Check: the side effects a guard flag
// holds back are safe to release): archiving the flag before the check
// returns its callers to their code's default unchecked. Only the
// commands on that artifact wait, whichever finding carries them (BF017's
// archive next to BF018's check, or BF018 carrying both); the rest of the
// plan does not. The check's finding goes once the check is done (the flag
// back in its normal position), and the next plan has them live.
func holdForChecks(items []Item) {
	checks := map[string]string{}
	for _, it := range items {
		if it.Human != nil && it.Human.Check && it.ArtifactURI != "" && (it.Hold == nil || it.Hold.Status != StatusWaived) {
			if _, seen := checks[it.ArtifactURI]; !seen {
				checks[it.ArtifactURI] = fmt.Sprintf("by-hand check %s on this %s first (its TODO at step %s); run bfaudit fix again once it is done",
					it.RuleID, kindOf(it), it.Human.Step)
			}
		}
	}
	for i := range items {
		if why, ok := checks[items[i].ArtifactURI]; ok && items[i].Action != nil && items[i].Waits == "" {
			items[i].Waits = why
		}
	}
}

// kindOf names what an item is about: its artifact's kind, else
// "artifact".
func kindOf(it Item) string {
	if it.artifact != nil && it.artifact.Kind != "" {
		return strings.ReplaceAll(string(it.artifact.Kind), "_", " ")
	}
	return "artifact"
}

// securityFirst reports whether a step's acts remove access: grants
// revoked, roles expired, keys disabled or deleted, connections holding a
// credential deleted. Once the replay has finished nothing needs that
// access, and a lingering grant or key is the most urgent thing left, so
// such a step waits only for the replay to finish, never for the steps
// between (a special alert still to remove, a rebuild still to run).
// Deleting tables and job definitions keeps waiting for every step
// before it, as docs/practice.md requires.
func securityFirst(s model.Step) bool { return s == model.StepAccessRevoked }

// untiedArtifacts indexes, once per plan, the artifacts tied to no
// backfill by source and URI: a live dashboard reading a backfill's table
// is reported for the backfill but is not its machinery.
func untiedArtifacts(ix *correlate.Index) map[[2]string]*model.Artifact {
	out := map[[2]string]*model.Artifact{}
	for i := range ix.Artifacts {
		if a := &ix.Artifacts[i]; a.Key == "" {
			out[[2]string{a.Source, a.URI}] = a
		}
	}
	return out
}

// itemStep is where an item goes: its command's step, else its human act's.
func itemStep(it Item) model.Step {
	switch {
	case it.Action != nil:
		return it.Action.Step
	case it.Human != nil:
		return it.Human.Step
	}
	return model.StepPlan
}

// itemsOf splits a finding's remedy into one item per command, and one
// for what a person must do.
func (in Inputs) itemsOf(f model.Finding, a *model.Artifact, b *model.Backfill, rec *model.DecisionRecord) []Item {
	base := Item{RuleID: f.RuleID, Severity: f.Severity, Fingerprint: f.Fingerprint, BackfillID: f.BackfillID,
		ArtifactURI: f.ArtifactURI, Source: f.Source, Message: f.Message, artifact: a}
	r, ok := remedy.Build(f, remedy.Facts{Artifact: a, Backfill: b, Record: rec, Lineage: in.Index.Lineage(), RecordsDir: in.RecordsDir, PlansDir: in.PlansDir})
	if !ok {
		// A rule bfaudit knows no command for (a user rule) keeps its
		// remediation text, at its step.
		it := base
		it.Human = &remedy.Human{Step: f.Step, What: f.Remediation}
		return []Item{it}
	}
	var out []Item
	for i := range r.Actions {
		it := base
		act := r.Actions[i]
		it.Action = &act
		if i == 0 {
			it.Alternatives, it.Notes = r.Alternatives, r.Notes
		}
		out = append(out, it)
	}
	if r.Human != nil {
		it := base
		it.Human = r.Human
		if len(r.Actions) == 0 {
			it.Alternatives, it.Notes = r.Alternatives, r.Notes
		}
		out = append(out, it)
	}
	return out
}

// sortItems puts commands before human acts and a step's late commands
// (a schema after its tables) last, rebuilds in their rebuild order, and
// keeps the report's order (most severe first) otherwise.
func sortItems(items []Item) {
	rank := func(it Item) int {
		switch {
		case it.Action == nil:
			return 2
		case it.Action.Late:
			return 1
		}
		return 0
	}
	order := func(it Item) int {
		if it.Action == nil {
			return 0
		}
		return it.Action.Order
	}
	sort.SliceStable(items, func(i, j int) bool {
		if ri, rj := rank(items[i]), rank(items[j]); ri != rj {
			return ri < rj
		}
		return order(items[i]) < order(items[j])
	})
}

// InputsOf is what a plan is made of: an audit's report (audit.Run, as
// `bfaudit audit` runs it) and the index it was judged on.
func InputsOf(a *audit.Audit) Inputs { return Inputs{Report: a.Report, Index: a.Index()} }
