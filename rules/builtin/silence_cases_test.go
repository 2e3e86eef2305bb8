package builtin_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Cases of the alert and silence rules (BF016, BF112, and BF007 fed by the
// prometheus collector), joined to the catalogue's firing and quiet lists.
func init() {
	firing = append(firing, silenceFiring...)
	quiet = append(quiet, silenceQuiet...)
}

const (
	srcAM   = "alertmanager"
	srcProm = "prometheus"
)

// monEstate is newEstate with the Alertmanager and Prometheus sources
// answering too.
func monEstate() *estate {
	e := newEstate()
	for _, s := range []string{srcAM, srcProm} {
		e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: s, System: s, Status: model.CoverageOK})
	}
	return e
}

const silenceID = "3718b247-382c-47fc-8491-e240456fbd7f"

// silence is an active silence of BF-1 as the alertmanager collector
// reports it, ending at ends.
func silence(ends time.Time) model.Artifact {
	return model.Artifact{Kind: model.KindSilence, System: "alertmanager", Source: srcAM, Scope: "silences",
		URI: "alertmanager://am/silences/" + silenceID, Name: silenceID, BackfillID: "bf-1", Correlation: "label",
		Labels: model.TagsOf(map[string]string{"backfill_id": "bf-1"}), State: model.StateActive, ExpiresAt: model.At(ends),
		Attributes: model.TagsOf(map[string]string{model.AttrMatchers: `{backfill_id="bf-1", alertname="OrdersLag"}`,
			model.AttrCreatedBy: "alice@example.com", model.AttrAPIURL: "http://alertmanager:9093"})}
}

// promAlert is a Prometheus alerting rule that watches only BF-1's series.
func promAlert() model.Artifact {
	return model.Artifact{Kind: model.KindAlert, System: "prometheus", Source: srcProm, Scope: "rules/bf.yml/bf-1-watch",
		URI: "prometheus://prom/rules/bf.yml/bf-1-watch/alert/BF1ReplayLag", Name: "BF1ReplayLag", BackfillID: "bf-1",
		Correlation: "expression", State: model.StateEnabled,
		Attributes: model.TagsOf(map[string]string{model.AttrWatchesOnly: "true", model.AttrAlertState: "firing",
			model.AttrExpr: `max(backfill_lag_seconds{backfill_id="bf-1"}) > 600`})}
}

func all(checks ...func(*testing.T, []model.Finding)) func(*testing.T, []model.Finding) {
	return func(t *testing.T, fs []model.Finding) {
		t.Helper()
		for _, c := range checks {
			c(t, fs)
		}
	}
}

func notMentions(sub string) func(*testing.T, []model.Finding) {
	return func(t *testing.T, fs []model.Finding) {
		t.Helper()
		for _, f := range fs {
			if strings.Contains(f.Message+strings.Join(f.Evidence, "\n"), sub) {
				t.Errorf("%s finding mentions %q: %s %v", f.RuleID, sub, f.Message, f.Evidence)
			}
		}
	}
}

func blocks(step model.Step) func(*testing.T, []model.Finding) {
	return func(t *testing.T, fs []model.Finding) {
		t.Helper()
		for _, f := range fs {
			if f.Step != step {
				t.Errorf("%s blocks %s, want %s", f.RuleID, f.Step, step)
			}
		}
	}
}

// The plan of BF-1 expires 2027-01-01; its replay finished at done.
var (
	planExpiry = at("2027-01-01T00:00:00Z")
	longAfter  = at("2027-06-01T00:00:00Z")
)

var silenceFiring = []ruleCase{
	{rule: "BF016", name: "silence still active after completion and grace", want: 1,
		check: all(severity(model.SeverityHigh), blocks(model.StepNormalized), mentions(silenceID), mentions("alice@example.com"),
			mentions("2026-12-01 00:00 UTC"), notMentions(`severity="critical"`), mentions("amtool --alertmanager.url=http://alertmanager:9093 silence expire "+silenceID)),
		build: func() *estate { return monEstate().plan(completed).artifact(silence(at("2026-12-01T00:00:00Z"))) }},
	{rule: "BF016", name: "grace ends at its exact instant", want: 1, now: done.Add(48 * time.Hour),
		build: func() *estate { return monEstate().plan(completed).artifact(silence(at("2026-12-01T00:00:00Z"))) }},
	{rule: "BF016", name: "it mutes a critical alert", want: 1, check: all(severity(model.SeverityCritical), mentions(`severity="critical"`)),
		build: func() *estate {
			return monEstate().plan(completed).artifact(silence(at("2026-12-01T00:00:00Z")), attr(model.AttrMutesCritical, "true"))
		}},
	{rule: "BF016", name: "within the grace, but set to end 8 days after the expiry", want: 1, now: done.Add(time.Hour),
		check: all(severity(model.SeverityHigh), mentions("8d after the backfill's expiry 2027-01-01")),
		build: func() *estate {
			return monEstate().plan(completed).artifact(silence(planExpiry.Add(8 * 24 * time.Hour)))
		}},
	{rule: "BF016", name: "a pending silence set to start later and end long after the expiry", want: 1,
		build: func() *estate {
			return monEstate().plan(completed).artifact(silence(longAfter), state(model.StateEnabled))
		}},
	{rule: "BF016", name: "an id that is not a plain word is quoted for the shell", want: 1,
		check: mentions(`silence expire 'x; rm -rf ~ '\''y'\'''`),
		build: func() *estate {
			return monEstate().plan(completed).artifact(silence(longAfter), func(a *model.Artifact) { a.Name = "x; rm -rf ~ 'y'" })
		}},
	{rule: "BF112", name: "silence set to end after the plan's expiry while the replay runs", want: 1,
		check: all(severity(model.SeverityMedium), mentions(silenceID), mentions("after the plan's expiry 2027-01-01")),
		build: func() *estate { return monEstate().plan(running).artifact(silence(longAfter)) }},
	{rule: "BF007", name: "Prometheus rule watching only the backfill's series, firing", want: 1,
		check: all(mentions("(firing)"), mentions(`watches max(backfill_lag_seconds{backfill_id="bf-1"}) > 600`)),
		build: func() *estate { return monEstate().plan(completed).artifact(promAlert()) }},
}

var silenceQuiet = []ruleCase{
	{rule: "BF016", name: "expired silence", build: func() *estate {
		return monEstate().plan(completed).artifact(silence(done.Add(24*time.Hour)), state(model.StateExpired))
	}},
	{rule: "BF016", name: "within the grace and ending before the expiry", now: done.Add(48*time.Hour - time.Second),
		build: func() *estate { return monEstate().plan(completed).artifact(silence(done.Add(72 * time.Hour))) }},
	{rule: "BF016", name: "ends exactly max_overrun after the expiry, within the grace", now: done.Add(time.Hour),
		build: func() *estate {
			return monEstate().plan(completed).artifact(silence(planExpiry.Add(7 * 24 * time.Hour)))
		}},
	{rule: "BF016", name: "replay still running is BF112's", build: func() *estate {
		return monEstate().plan(running).artifact(silence(longAfter))
	}},
	{rule: "BF016", name: "silence of a backfill nobody planned is BF011's", build: func() *estate {
		return monEstate().plan(completed).artifact(silence(longAfter), func(a *model.Artifact) { a.BackfillID = "bf-404" })
	}},
	{rule: "BF112", name: "silence ends exactly at the plan's expiry", build: func() *estate {
		return monEstate().plan(running).artifact(silence(planExpiry))
	}},
	{rule: "BF112", name: "replay finished: BF016's", build: func() *estate {
		return monEstate().plan(completed).artifact(silence(longAfter))
	}},
	{rule: "BF112", name: "plan without an expiry has no window", build: func() *estate {
		return monEstate().plan(running, func(b *model.Backfill) { b.Expiry = time.Time{} }).artifact(silence(longAfter))
	}},
	{rule: "BF007", name: "Prometheus rule tied by label, watching more than the backfill", build: func() *estate {
		return monEstate().plan(completed).artifact(promAlert(), attr(model.AttrWatchesOnly, "false"))
	}},
	{rule: "BF007", name: "a silence is not a special alert", build: func() *estate {
		return monEstate().plan(completed).artifact(silence(longAfter), attr(model.AttrWatchesOnly, "true"), attr(model.AttrTemporary, "true"))
	}},
}
