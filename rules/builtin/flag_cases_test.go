package builtin_test

import (
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Cases of the flag and dashboard rules (BF017, BF018, BF019, BF113),
// joined to the catalogue's firing and quiet lists.
func init() {
	firing = append(firing, flagFiring...)
	quiet = append(quiet, flagQuiet...)
}

const srcFlags = "flags"

func flagEstate() *estate {
	e := newEstate()
	e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: srcFlags, System: "unleash", Status: model.CoverageOK})
	return e
}

// flag is an Unleash flag of BF-1, on in staging only.
func flagOf(name string, mods ...func(*model.Artifact)) model.Artifact {
	a := model.Artifact{Kind: model.KindFeatureFlag, System: "unleash", Source: srcFlags, Scope: "default",
		URI: "unleash://flags/projects/default/features/" + name, Name: name, BackfillID: "BF-1", State: model.StateEnabled,
		Attributes: model.TagsOf(map[string]string{model.AttrEnabledIn: "staging"})}
	for _, m := range mods {
		m(&a)
	}
	return a
}

// reader is a live dashboard, tied to no backfill, one of whose panels
// reads BF-1's temporary table.
func reader() model.Artifact {
	return model.Artifact{Kind: model.KindDashboard, System: "grafana", Source: srcWH, Scope: "general",
		URI: "grafana://g/dashboards/orders", Name: "Orders", State: model.StateActive,
		Attributes: model.TagsOf(map[string]string{model.AttrReads: model.FormatReads([]model.Read{
			{Identifier: "p.d.bf_1_tmp", BackfillID: "bf_1", Where: `panel "Orders by day"`}})})}
}

func sensitive(b *model.Backfill) { b.Classification = model.ClassCustomer; b.KeepEvidence = true }

func namesFlags(b *model.Backfill) {
	b.FeatureFlags = []string{"bf-1-replay-mode"}
	b.Dashboards = []string{"bf-1-progress"}
}

var flagFiring = []ruleCase{
	{rule: "BF017", name: "flag of a finished backfill, on in staging", want: 1, check: all(severity(model.SeverityMedium), mentions("on in staging")),
		build: func() *estate { return flagEstate().plan(completed).artifact(flagOf("bf-1-replay-mode")) }},
	{rule: "BF017", name: "on in production is high", want: 1, check: all(severity(model.SeverityHigh), mentions("on in production")),
		build: func() *estate {
			return flagEstate().plan(completed).artifact(flagOf("bf-1-replay-mode", attr(model.AttrProduction, "true"), attr(model.AttrEnabledIn, "production")))
		}},
	{rule: "BF017", name: "off everywhere still exists: low, nothing runs through it", want: 1, check: all(severity(model.SeverityLow), mentions("off everywhere")),
		build: func() *estate {
			return flagEstate().plan(completed).artifact(flagOf("bf-1-replay-mode", state(model.StateDisabled), attr(model.AttrEnabledIn, "")))
		}},
	{rule: "BF018", name: "guard named for e-mails still on", want: 1, check: all(severity(model.SeverityHigh), mentions("suppress-emails-bf-1")),
		build: func() *estate { return flagEstate().plan(completed).artifact(flagOf("suppress-emails-bf-1")) }},
	{rule: "BF018", name: "guard of a customer backfill is critical", want: 1, check: severity(model.SeverityCritical),
		build: func() *estate {
			return flagEstate().plan(completed, sensitive).artifact(flagOf("suppress-emails-bf-1"))
		}},
	{rule: "BF018", name: "the plan names the guard", want: 1, check: mentions("side_effects names"),
		build: func() *estate {
			return flagEstate().plan(completed, func(b *model.Backfill) { b.SideEffects = []string{"bf-1-quiet"} }).artifact(flagOf("bf-1-quiet"))
		}},
	{rule: "BF018", name: "a flagd guard on its \"on\" variant, no replay position recorded", want: 1,
		build: func() *estate {
			return flagEstate().plan(completed).artifact(flagOf("suppress-emails-bf-1", attr(model.AttrPosition, "on")))
		}},
	{rule: "BF018", name: "a variant guard still on its replay variant", want: 1, check: mentions("position off"),
		build: func() *estate {
			return flagEstate().plan(completed).artifact(flagOf("bf-1-invoices", attr(model.AttrGuard, "true"),
				attr(model.AttrPosition, "off"), attr(model.AttrReplayPosition, "off")))
		}},
	{rule: "BF019", name: "live dashboard reads the temp table", want: 1, check: all(mentions(`panel "Orders by day" reads p.d.bf_1_tmp (bq://p/d/bf_1_tmp, active)`), mentions("repoint")),
		build: func() *estate { return flagEstate().plan(completed).artifact(table()).artifact(reader()) }},
	{rule: "BF019", name: "the table is not in the estate", want: 1,
		build: func() *estate { return flagEstate().plan(completed).artifact(reader()) }},
	{rule: "BF113", name: "plan names a flag and a dashboard it does not remove", want: 1, check: mentions("bf-1-replay-mode and bf-1-progress"),
		build: func() *estate { return flagEstate().plan(namesFlags) }},
}

var flagQuiet = []ruleCase{
	{rule: "BF017", name: "within the grace period", now: done.Add(24 * time.Hour),
		build: func() *estate { return flagEstate().plan(completed).artifact(flagOf("bf-1-replay-mode")) }},
	{rule: "BF017", name: "archived flag",
		build: func() *estate {
			return flagEstate().plan(completed).artifact(flagOf("bf-1-replay-mode", state(model.StateDeleted), attr(model.AttrArchived, "true")))
		}},
	{rule: "BF017", name: "replay still running",
		build: func() *estate { return flagEstate().plan(running).artifact(flagOf("bf-1-replay-mode")) }},
	{rule: "BF018", name: "guard switched back off",
		build: func() *estate {
			return flagEstate().plan(completed).artifact(flagOf("suppress-emails-bf-1", state(model.StateDisabled)))
		}},
	{rule: "BF018", name: "a flagd guard on its \"off\" variant, no replay position recorded",
		build: func() *estate {
			return flagEstate().plan(completed).artifact(flagOf("suppress-emails-bf-1", state(model.StateDisabled), attr(model.AttrPosition, "off")))
		}},
	{rule: "BF018", name: "a flag that guards nothing",
		build: func() *estate { return flagEstate().plan(completed).artifact(flagOf("bf-1-replay-mode")) }},
	{rule: "BF018", name: "a variant guard moved off its replay variant",
		build: func() *estate {
			return flagEstate().plan(completed).artifact(flagOf("bf-1-invoices", attr(model.AttrGuard, "true"),
				attr(model.AttrPosition, "on"), attr(model.AttrReplayPosition, "off")))
		}},
	{rule: "BF019", name: "during the replay a dashboard may watch its tables",
		build: func() *estate { return flagEstate().plan(running).artifact(table()).artifact(reader()) }},
	{rule: "BF019", name: "the backfill's own dashboard",
		build: func() *estate {
			return flagEstate().plan(completed).artifact(table()).artifact(reader(), func(a *model.Artifact) { a.BackfillID = "BF-1" })
		}},
	{rule: "BF113", name: "plan lists them for removal",
		build: func() *estate {
			return flagEstate().plan(namesFlags, func(b *model.Backfill) {
				b.AssetsToRemove = append(b.AssetsToRemove, "unleash://flags/projects/default/features/bf-1-replay-mode", "grafana://g/dashboards/bf-1-progress")
			})
		}},
}
