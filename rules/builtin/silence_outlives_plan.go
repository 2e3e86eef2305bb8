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
			"keeps production alerts muted past the date the backfill is meant to be over, however the replay goes. " +
			"It applies only until the replay is over (for a silence naming several backfills, while any of them still replays, against the latest of their expiries); " +
			"from then on BF016 (lingering-silence) judges the silence.",
		Practice:    rules.PracticePlan,
		Kinds:       []model.Kind{model.KindSilence},
		Remediation: "Shorten the silence to end by the plan's expiry (recreate it with `amtool silence add --duration` or an end time; the old one with `amtool silence expire <id>`), or move the plan's expiry if the replay truly needs longer.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Check: silenceOutlivesPlan,
		Remedy: &remedy.Recipe{Build: remedy.SilenceOutlivesPlan, Kind: model.KindSilence,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("silence")}},
	})
}

// silenceOutlivesPlan flags, while a backfill a silence names has not
// finished its replay, each live silence set to end after the plan's
// expiry. A silence naming several backfills is judged against the latest
// expiry among those still replaying: it is needed until then, and not for
// the finished ones. Once every replay is over BF016 takes over, at a
// higher severity. A plan without an expiry has no window to judge (BF101
// reports it); a backfill nothing describes has no known window either.
func silenceOutlivesPlan(c *rules.Context) {
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		s := c.Index.BackfillsOf(a)
		if len(s.Unknown) > 0 {
			return
		}
		var window *model.Backfill // the running backfill with the latest expiry
		for _, r := range s.Backfills {
			if r.Status.Completed() {
				continue
			}
			if r.Expiry.IsZero() {
				return
			}
			if window == nil || r.Expiry.After(window.Expiry) {
				window = r
			}
		}
		if window == nil || !a.ExpiresAt.Time().After(window.Expiry) {
			return
		}
		ev := append(silenceEvidence(a), servesNote(s.Backfills)...)
		ev = append(ev, fmt.Sprintf("plan %s expires %s; the silence ends %s later", window.Source, day(window.Expiry.UTC()), span(a.ExpiresAt.Time().Sub(window.Expiry))))
		c.Report(rules.Issue{Backfill: b, Artifact: a, Evidence: ev,
			Message: fmt.Sprintf("%s ends after the plan's expiry %s: it would keep muting %s past %s", describeSilence(a), day(window.Expiry.UTC()), orAnyAlert(a), backfillNames(s.Backfills))})
	})
}
