package builtin

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: rules.KeepLabelInvalidID, Name: "keep-label-invalid", Title: "Keep label on an artifact is not honoured",
		Rationale: "A keep label (bfaudit-keep-until with bfaudit-keep-reason) lets an artifact's owners say on the artifact itself that it stays for now; " +
			"the audit then waives the findings on it until that date, like a waiver in the config. " +
			"A label without a reason, without a readable date, or asking for longer than the longest keep allowed would turn lingering machinery into permanent machinery, " +
			"so it waives nothing and is reported instead.",
		Practice:    rules.PracticeNotDone,
		Remediation: "Set bfaudit-keep-until to a date (2027-01-31) within the longest keep allowed and bfaudit-keep-reason to why the artifact stays, or remove the label.",
		Severity:    model.SeverityLow, Step: model.StepPlan,
		Params: []rules.Param{{Name: rules.MaxKeepParam, Default: rules.DefaultMaxKeep,
			Description: "the longest a keep label may ask for, counted from the audit's time; a label asking for more waives nothing"}},
		Check:  keepLabelInvalid,
		Remedy: &remedy.Recipe{Build: remedy.KeepLabel, Examples: []remedy.ExampleOf{remedy.ExampleOn("bq-table")}},
	})
}

// keepLabelInvalid reports every live artifact whose keep label is not
// honoured, tied to a backfill or not: the label is a decision someone
// wrote for the audit, and it is wrong wherever it is.
func keepLabelInvalid(c *rules.Context) {
	max := c.Duration(rules.MaxKeepParam)
	for i := range c.Index.Artifacts {
		a := &c.Index.Artifacts[i]
		if !a.HasKeep() || !a.State.Live() {
			continue
		}
		k := rules.ReadKeep(a, c.Now, max)
		if k.Valid() {
			continue
		}
		var b *model.Backfill
		if a.Key != "" {
			b = c.Index.Backfill(a.Key)
		}
		ev := []string{stateNote(a)}
		for _, kv := range [][2]string{{"keep-until", k.Raw}, {"keep-reason", k.Reason}, {"set by", k.By}} {
			if kv[1] != "" {
				ev = append(ev, kv[0]+": "+kv[1])
			}
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a,
			Message:  fmt.Sprintf("keep label on %s %s waives nothing: %s", a.Kind, nameOr(a), strings.Join(k.Problems, "; ")),
			Evidence: append(ev, k.Problems...)})
	}
}
