package remedy

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// RestoreGuard puts a side-effect guard back in its normal position. It is
// a human act, not a command: only a person can say the job's side
// effects may run again and check they do. Removing the flag afterwards is
// the lingering flag's remedy.
func RestoreGuard(r *Remedy, _ model.Finding, facts Facts) {
	a := facts.Artifact
	if a == nil {
		return
	}
	where := a.URI
	if u := a.Attr(model.AttrURL); u != "" {
		where = u
	}
	r.Human = &Human{Step: model.StepNormalized, Where: where,
		What: fmt.Sprintf("Make sure flag %s is back in its normal position (side effects on) in every environment, and check the job sends again. "+
			"Removing the flag (BF017's command) returns its callers to the default in their code: check that default is the normal position.", nameOr(a))}
}

// RepointReader: a live dashboard or alert rule reading a backfill's
// temporary table is repointed to the final data or retired, by a person,
// before the table is dropped.
func RepointReader(r *Remedy, _ model.Finding, facts Facts) {
	a := facts.Artifact
	if a == nil {
		return
	}
	where := a.URI
	if u := a.Attr(model.AttrURL); u != "" {
		where = u
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
	what := fmt.Sprintf("Repoint the queries of %s %s to %s, or retire them", a.Kind, nameOr(a), target)
	if len(reads) > 0 {
		what += ": " + strings.Join(reads, ", ")
	}
	r.Human = &Human{Step: model.StepNormalized, Where: where,
		What: what + ". The temporary table is dropped only after this."}
}
