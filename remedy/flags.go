package remedy

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// RestoreGuard puts a side-effect guard back in its normal position. It is
// a human act, not a command: only a person can say the job's side
// effects may run again and check they do. Removing the flag afterwards is
// the lingering flag's remedy, whichever finding carries it: the check
// holds back the commands on the same flag (fix plans them waiting).
func RestoreGuard(r *Remedy, _ model.Finding, facts Facts) {
	a := facts.Artifact
	if a == nil {
		return
	}
	r.Human = &Human{Step: model.StepNormalized, Where: pageOf(a), Check: true,
		What: fmt.Sprintf("Make sure flag %s is back in its normal position (side effects on) in every environment, and check the job sends again. "+
			"Removing the flag (BF017's command) returns its callers to the default in their code: check that default is the normal position.", a.NameOrURI())}
}

// RepointReader: a live dashboard or alert rule reading a backfill's
// temporary table is repointed to the final data or retired, by a person,
// before the table is dropped.
func RepointReader(r *Remedy, _ model.Finding, facts Facts) {
	a := facts.Artifact
	if a == nil {
		return
	}
	target := "the final table"
	if rec := facts.Record; rec != nil && rec.FinalDataLocation != "" {
		target = rec.FinalDataLocation
	}
	var reads []string
	for _, rd := range a.Reads() {
		s := rd.Identifier
		if rd.Where != "" {
			s = rd.Where + " (" + rd.Identifier + ")"
		}
		reads = append(reads, s)
	}
	what := fmt.Sprintf("Repoint the queries of %s %s to %s, or retire them", a.Kind, a.NameOrURI(), target)
	if len(reads) > 0 {
		what += ": " + strings.Join(reads, ", ")
	}
	r.Human = &Human{Step: model.StepNormalized, Where: pageOf(a), Check: true,
		What: what + ". The temporary table is dropped only after this."}
}

// pageOf is where a person acts on an artifact: its page in its system's
// web UI, else its URI.
func pageOf(a *model.Artifact) string {
	if u := a.Attr(model.AttrURL); u != "" {
		return u
	}
	return a.URI
}

// RecordCheckpoint: the checkpoint's final range, replay id and location
// written into the decision record before the state is deleted. The
// range is filled from the offsets the collector read, when it read them.
func RecordCheckpoint(r *Remedy, f model.Finding, facts Facts) {
	a := facts.Artifact
	if a == nil {
		return
	}
	where := recordFile(f.BackfillID, facts)
	if facts.Record != nil && facts.Record.Source.Path != "" {
		where = facts.Record.Source.String()
	}
	in := newDoc()
	in.str("final_range", a.Attr(model.AttrOffsets), "the last processed range or offsets")
	in.str("replay_id", a.Name, "")
	in.str("location", a.URI, "")
	d := newDoc()
	d.nested("checkpoint", in, "")
	r.Human = &Human{Step: model.StepArchived, Where: where, Template: d.String(),
		What: "Write what the checkpoint state held into the decision record's front matter, before the state is deleted."}
}
