package remedy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Human acts: what to write and where, with a filled-in template. Values
// bfaudit knows (from the plan, the record, the artifact) are filled in;
// the rest are left blank with a TODO saying what goes there.

// recordTemplate is a decision record's front matter (the fields the practice
// lists, docs/practice.md "Close the loop in order") filled from the
// record when there is one, else from the plan.
func recordTemplate(id string, b *model.Backfill, rec *model.DecisionRecord, only []string) string {
	var v model.DecisionRecord
	if rec != nil {
		v = *rec
	}
	if b != nil {
		v.Purpose = first(v.Purpose, b.Purpose)
		if v.Range.IsZero() {
			v.Range = b.Range
		}
		v.JobID = first(v.JobID, b.JobID)
		v.ValidationQuery = first(v.ValidationQuery, b.ValidationQuery)
		v.ApprovingOwner = first(v.ApprovingOwner, b.Approver)
	}
	want := func(key string) bool { return only == nil || slices.Contains(only, key) }
	d := newDoc()
	if only == nil {
		d.str("backfill_id", first(v.BackfillID, id), "the backfill's id")
	}
	if want("purpose") {
		d.str("purpose", v.Purpose, "why the backfill ran (the incident or migration requirement)")
	}
	if want("range") {
		d.rangeOf("range", v.Range.Start, v.Range.End, "the corrected range, {start: 2026-06-01, end: 2026-08-30}")
	}
	if want("job_id") {
		d.str("job_id", v.JobID, "the replayed job")
	}
	if want("validation_query") {
		d.str("validation_query", v.ValidationQuery, "the query that proves the corrected range exists")
	}
	if want("approving_owner") {
		d.str("approving_owner", v.ApprovingOwner, "who approved the result")
	}
	if want("final_data_location") {
		d.str("final_data_location", v.FinalDataLocation, "where the final data lives now (project.dataset.table, schema.table)")
	}
	if only == nil {
		d.date("archived_at", v.ArchivedAt, "the day you archive the record, once every field above is right")
	}
	return d.String()
}

func recordFile(id string, facts Facts) string {
	name := strings.ToLower(string(model.ParseID(id))) + ".md"
	if facts.RecordsDir != "" {
		return filepath.Join(facts.RecordsDir, name)
	}
	return name + " in the directory the records source reads (records: in its config)"
}

// MissingRecord: the decision record to write (or complete, when one
// exists), as front matter filled from the plan.
func MissingRecord(r *Remedy, f model.Finding, facts Facts) {
	where := recordFile(f.BackfillID, facts)
	what := "Write the decision record, as Markdown with this front matter, and archive it (archived_at) once every field is right."
	if facts.Record != nil && facts.Record.Source.Path != "" {
		where = facts.Record.Source.String()
		what = "Complete the decision record and archive it: set archived_at once every field is right."
	}
	r.Human = &Human{Step: model.StepArchived, Where: where, What: what,
		Template: "---\n" + recordTemplate(f.BackfillID, facts.Backfill, facts.Record, nil) + "\n---\n# " +
			string(model.ParseID(f.BackfillID)) + ": " + first(purposeOf(facts), "TODO purpose") + "\n"}
}

// IncompleteRecord: the record's missing fields, filled from the plan.
func IncompleteRecord(r *Remedy, f model.Finding, facts Facts) {
	var missing []string
	if facts.Record != nil {
		missing = facts.Record.MissingFields()
	}
	if len(missing) == 0 {
		missing = []string{"purpose", "range", "job_id", "validation_query", "approving_owner", "final_data_location"}
	}
	r.Human = &Human{Step: model.StepArchived, Where: locationOr(f, recordFile(f.BackfillID, facts)),
		What:     "Add the missing fields to the decision record's front matter.",
		Template: recordTemplate(f.BackfillID, facts.Backfill, facts.Record, missing)}
}

// OutOfOrder: tables or jobs already deleted leave only the record to
// write, now; credentials live after the tables went are revoked.
func OutOfOrder(r *Remedy, f model.Finding, facts Facts) {
	if a := facts.Artifact; a != nil && a.State.Live() && (a.Kind == model.KindGrant || a.Kind == model.KindCredential) {
		removeArtifact(r, facts, model.StepAccessRevoked)
		return
	}
	MissingRecord(r, f, facts)
	r.Human.What = "Archive the decision record now, with what is left: the deleted machinery's evidence is gone, so say what was deleted and when. " + r.Human.What
}

// Orphan: a plan that owns the artifact, or its removal once nobody
// claims it (fix holds the removal back: no plan orders it).
func Orphan(r *Remedy, f model.Finding, facts Facts) {
	if a := facts.Artifact; a != nil {
		removal(r, a)
	}
	id := string(model.ParseID(f.BackfillID))
	d := newDoc()
	d.str("id", id, "")
	d.str("purpose", "", "why the backfill ran")
	d.str("owner", "", "who owns its cleanup")
	d.str("status", "", "planned, running, replayed, verified, archived or retired")
	d.str("expiry", "", "when its temporary machinery must be gone")
	d.list("assets_to_remove", []string{f.ArtifactURI}, "")
	where := "a new plan file"
	if facts.PlansDir != "" {
		where = filepath.Join(facts.PlansDir, strings.ToLower(id)+".yaml")
	}
	r.Human = &Human{Step: model.StepRetired, Where: where, Template: d.String(),
		What: "Find the backfill this artifact came from and write its plan (and decision record); or, once nobody claims it, remove the artifact with the commands below."}
}

// Unowned: an owner to name in the plan.
func Unowned(r *Remedy, f model.Finding, facts Facts) {
	d := newDoc()
	d.str("owner", "", "the person who owns this backfill's cleanup (or an owner label on the artifact)")
	r.Human = &Human{Step: model.StepRetired, Where: planFile(f, facts), Template: d.String(),
		What: "Name an owner in the backfill's plan, or put an owner label on the artifact."}
}

// UnverifiedRange: the missing intervals to replay, and the range and
// query to check them with.
func UnverifiedRange(r *Remedy, f model.Finding, facts Facts) {
	d := newDoc()
	if b := facts.Backfill; b != nil {
		d.rangeOf("range", b.Range.Start, b.Range.End, "the declared range")
		d.str("validation_query", b.ValidationQuery, "the completeness query")
	}
	r.Human = &Human{Step: model.StepVerified, Where: planFile(f, facts), Template: d.String(),
		What: "Re-run the missing intervals of the replay (or correct the range in the plan if the requirement changed), then run the validation query again."}
}

// Undeclared: the artifact to add to the plan's assets_to_remove.
func Undeclared(r *Remedy, f model.Finding, facts Facts) {
	var assets []string
	if facts.Backfill != nil {
		assets = append(assets, facts.Backfill.AssetsToRemove...)
	}
	if !slices.Contains(assets, f.ArtifactURI) {
		assets = append(assets, f.ArtifactURI)
	}
	d := newDoc()
	d.list("assets_to_remove", assets, "")
	r.Human = &Human{Step: model.StepRetired, Where: planFile(f, facts), Template: d.String(),
		What: "Add the artifact to the plan's assets_to_remove (a grant or credential goes under elevated_access), or take the backfill label off it if it is not backfill machinery."}
}

// Overdue: stop the backfill, or move its expiry with the approver.
func Overdue(r *Remedy, f model.Finding, facts Facts) {
	d := newDoc()
	var exp model.Backfill
	if facts.Backfill != nil {
		exp = *facts.Backfill
	}
	d.date("expiry", exp.Expiry, "")
	r.Human = &Human{Step: model.StepVerified, Where: planFile(f, facts), Template: d.String(),
		What: fmt.Sprintf("Stop the backfill and clear its queued runs (job %s), or, if it must finish, move the plan's expiry with the approver's (%s) consent.",
			OrDash(exp.JobID), OrDash(exp.Approver))}
}

// PlanMissingCleanup: the plan's cleanup section to write.
func PlanMissingCleanup(r *Remedy, f model.Finding, facts Facts) {
	var b model.Backfill
	if facts.Backfill != nil {
		b = *facts.Backfill
	}
	d := newDoc()
	d.date("expiry", b.Expiry, "when the temporary machinery must be gone")
	d.str("validation_query", b.ValidationQuery, "the query that proves the corrected range exists")
	if len(b.AssetsToRemove) > 0 {
		d.list("assets_to_remove", b.AssetsToRemove, "")
	} else {
		d.str("assets_to_remove", "", "the URIs of every asset created only for the backfill")
	}
	d.str("cleanup_owner", b.CleanupOwner, "who closes access and removes the assets")
	r.Human = &Human{Step: model.StepPlan, Where: planFile(f, facts), Template: d.String(),
		What: "Give the plan its cleanup section before the job runs."}
}

// NotTimeBound: the plan's entry gets an expiry; a grant already made is
// given an end in its system.
func NotTimeBound(r *Remedy, f model.Finding, facts Facts) {
	a, b := facts.Artifact, facts.Backfill
	if a == nil {
		d := newDoc()
		d.str("expiry", "", "when the elevated access ends (it is granted with that end)")
		r.Human = &Human{Step: model.StepPlan, Where: locationOr(f, planFile(f, facts)), Template: d.String(),
			What: "Give the plan's elevated access an expiry."}
		return
	}
	end := "TODO-expiry"
	if b != nil && !b.Expiry.IsZero() {
		end = b.Expiry.UTC().Format("2006-01-02T15:04:05Z")
	}
	h := &Human{Step: model.StepPlan, Where: a.URI, What: "Give the grant an end, so it lapses by itself if cleanup is forgotten."}
	if bound := commandsOf(a).Bound; bound != nil {
		var more string
		h.Template, more = bound(a, end)
		h.What += more
	}
	r.Human = h
}

// CatchupRisk: a recent start date and catch-up off, or, for a backfill's
// replay job, a start and end at its plan's range; in the job's definition
// where its scheduler says how (Catchup).
func CatchupRisk(r *Remedy, f model.Finding, facts Facts) {
	var start, end time.Time
	h := &Human{Step: model.StepPlan, Where: f.ArtifactURI,
		What: "Give the job an explicit, recent start date and turn catch-up off where it does not need history."}
	if b := facts.Backfill; b != nil && !b.Range.Start.IsZero() && !b.Range.End.IsZero() {
		// A backfill's replay job that starts before its plan's range:
		// catching up is the replay, over the range and no further.
		start, end = b.Range.Start, b.Range.End
		h.What = fmt.Sprintf("Start the replay job where the plan's range starts and end it where the range ends, so that catching up replays %s's range and nothing else.", b.ID)
	}
	if a := facts.Artifact; a != nil && a.Kind == model.KindSchedulerJob {
		if catchup := commandsOf(a).Catchup; catchup != nil {
			h.Where, h.Template = catchup(a, start, end)
		}
	}
	r.Human = h
}

// ConsumersNotInformed: the notice to send downstream, then the plan
// key that records it.
func ConsumersNotInformed(r *Remedy, f model.Finding, facts Facts) {
	var b model.Backfill
	if facts.Backfill != nil {
		b = *facts.Backfill
	}
	d := newDoc()
	d.set("consumers_notified", "true", "once the notice above went out")
	id := model.ParseID(f.BackfillID)
	notice := fmt.Sprintf("Subject: %s changes published numbers for %s\n\n"+
		"Backfill %s (%s) replays %s over %s.\n"+
		"Why: %s\n"+
		"What changes: TODO: the tables, reports and figures that move, and by how much\n"+
		"The previous version stays available for comparison at: TODO\n"+
		"Questions: %s\n",
		id, rangeText(b.Range), id, b.Trigger, OrDash(b.JobID),
		rangeText(b.Range), first(b.Purpose, "TODO"), first(b.Owner, "TODO"))
	r.Human = &Human{Step: model.StepPlan, Where: planFile(f, facts), Template: notice + "\n" + d.String(),
		What: "Tell downstream consumers which intervals change and why, then record it in the plan."}
}

// SilenceOutlivesPlan: the silence is recreated to end with the plan;
// expiring it outright would unmute the alerts the replay still trips.
// Its system's Bound writes the commands.
func SilenceOutlivesPlan(r *Remedy, f model.Finding, facts Facts) {
	a := facts.Artifact
	if a == nil {
		return
	}
	end := "TODO-plan-expiry"
	if b := facts.Backfill; b != nil && !b.Expiry.IsZero() {
		end = b.Expiry.UTC().Format("2006-01-02T15:04:05Z")
	}
	bound := commandsOf(a).Bound
	if bound == nil {
		return
	}
	h := &Human{Step: model.StepPlan, Where: first(a.Attr(model.AttrAPIURL), a.URI), What: "Recreate the silence to end by the plan's expiry"}
	silence := *a // the new silence names the finding's backfill
	silence.BackfillID = f.BackfillID
	var more string
	h.Template, more = bound(&silence, end)
	h.What += more
	r.Human = h
}

// planFile is the plan a finding is about.
func planFile(f model.Finding, facts Facts) string {
	if f.Location != nil && f.Location.Path != "" && !strings.HasPrefix(f.ArtifactURI, "record:") {
		return f.Location.Path
	}
	if b := facts.Backfill; b != nil && b.Source.Path != "" {
		return b.Source.Path
	}
	return "the plan of " + string(model.ParseID(f.BackfillID))
}

func purposeOf(facts Facts) string {
	if facts.Record != nil && facts.Record.Purpose != "" {
		return facts.Record.Purpose
	}
	if facts.Backfill != nil {
		return facts.Backfill.Purpose
	}
	return ""
}

func rangeText(i model.Interval) string {
	if i.IsZero() {
		return "TODO range"
	}
	return "[" + dateText(i.Start) + ", " + dateText(i.End) + ")"
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// MissingPlan: the plan to write for a backfill the scheduler runs that
// nobody planned, filled from what the scheduler says of it.
func MissingPlan(r *Remedy, f model.Finding, facts Facts) {
	id := string(model.ParseID(f.BackfillID))
	d := newDoc()
	d.str("id", id, "")
	d.str("purpose", "", "why the backfill runs")
	d.str("owner", "", "who answers for it and its cleanup")
	var b model.Backfill
	if facts.Backfill != nil {
		b = *facts.Backfill
	}
	d.str("job_id", b.JobID, "the job replayed")
	d.rangeOf("range", b.Range.Start, b.Range.End, "the intervals replayed")
	d.str("status", first(string(b.Status), "running"), "")
	if len(b.Scheduled) > 0 {
		v := b.Scheduled[0]
		if v.MaxActiveRuns > 0 {
			d.set("concurrency", itoa(v.MaxActiveRuns), "the scheduler's max_active_runs: lower it if the source cannot take it")
		}
		if v.Pool != "" {
			d.str("pool", v.Pool, "a dedicated low-priority pool")
		}
		if v.DependsOnPast != nil {
			d.set("depends_on_past", fmt.Sprint(*v.DependsOnPast), "")
		}
		if v.ReprocessBehavior != "" {
			d.str("reprocess_behavior", v.ReprocessBehavior, "")
		}
	}
	d.str("expiry", "", "when its temporary machinery must be gone")
	d.list("side_effects", nil, "e-mails, invoices, alerts the job sends; then side_effects_disabled: true")
	where := "a new plan file"
	if facts.PlansDir != "" {
		// An unplanned scheduler backfill's id (airflow:src:dag:12) holds
		// colons, which some file systems refuse.
		where = filepath.Join(facts.PlansDir, strings.ToLower(strings.ReplaceAll(id, ":", "-"))+".yaml")
	}
	r.Human = &Human{Step: model.StepPlan, Where: where, Template: d.String(),
		What: "Find who started this backfill; while it runs unplanned, pause it in the scheduler, then write its plan (range, owner, concurrency, pool, side effects) and have it approved."}
}
