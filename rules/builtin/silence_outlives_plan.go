package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF112", Name: "silence-outlives-plan", Title: "Silence for the backfill has no end inside the plan's window",
		Rationale: "Temporary machinery gets an expiry before the job runs, and a silence is temporary machinery: one set to end after the plan's expiry " +
			"keeps production alerts muted past the date the backfill is meant to be over, however the replay goes.",
		Seed:        seedCleanup + `, "Prevent lingering backfill machinery"`,
		Remediation: "Shorten the silence to end by the plan's expiry (recreate it with `amtool silence add --duration` or an end time; the old one with `amtool silence expire <id>`), or move the plan's expiry if the replay truly needs longer.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Check: silenceOutlivesPlan,
		Remedy: &remedy.Recipe{Build: remedy.SilenceOutlivesPlan, Kind: model.KindSilence,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("silence")}},
	})
}

// silenceOutlivesPlan flags, while a backfill has not finished its
// replay, each of its live silences set to end after the plan's expiry.
// Once the replay is over BF016 takes over, at a higher severity. A plan
// without an expiry has no window to judge (BF101 reports it).
func silenceOutlivesPlan(c *rules.Context) {
	tied(c.Index, []model.Kind{model.KindSilence}, func(b *model.Backfill, a *model.Artifact) {
		if b.Status.Completed() || b.Expiry.IsZero() || !a.ExpiresAt.After(b.Expiry) {
			return
		}
		ev := append(silenceEvidence(a),
			fmt.Sprintf("plan %s expires %s; the silence ends %s later", b.Source, day(b.Expiry.UTC()), span(a.ExpiresAt.Sub(b.Expiry))))
		c.Report(rules.Issue{Backfill: b, Artifact: a, Evidence: ev,
			Message: fmt.Sprintf("%s ends after the plan's expiry %s: it would keep muting %s past backfill %s", describeSilence(a), day(b.Expiry.UTC()), orAnyAlert(a), b.ID)})
	})
}
