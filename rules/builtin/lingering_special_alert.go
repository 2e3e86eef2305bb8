package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF007", Name: "lingering-special-alert", Title: "Alert or dashboard made for the backfill is still active",
		Rationale: "A special alert that only watched the backfill is removed once normal pipeline alerting covers the path; left active it pages people about a replay that is over, " +
			"and a dashboard made for it shows a replay nobody watches any more. (Feature flags: BF017.)",
		Practice: rules.PracticeCloseTheLoop,
		Kinds:    []model.Kind{model.KindAlert, model.KindDashboard},
		Remediation: "Delete the alert or dashboard once the normal schedule and alerting are back (a Prometheus rule: remove it from its rule file or PrometheusRule and reload); " +
			"if it is worth keeping, take it off the backfill (remove the label) and give it an owner.",
		Severity: model.SeverityLow, Step: model.StepNormalized,
		Supersedes: []rules.Supersede{foldsUndeclared},
		Params:     []rules.Param{{Name: "grace", Default: "2d", Description: "time after completion before a backfill-only alert counts as lingering"}},
		Check:      lingeringSpecialAlert,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepNormalized), Kind: model.KindAlert,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("prom-alert"), remedy.ExampleOn("grafana-dashboard")}},
	})
}

// lingeringSpecialAlert flags alerts and dashboards that only watched
// backfills (the watches_backfill or temporary attribute, or declared in a
// plan's assets to remove), while they are still switched on once every
// backfill they name is over. Feature flags are BF017's. A paused or
// disabled alert pages nobody. Prometheus rules come with the expression
// they watch and their state (the prometheus collector sets
// watches_backfill when every selector of the expression is restricted to
// backfill series). An alert watching two backfills lingers only once the
// last of them is over (served.go).
func lingeringSpecialAlert(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if a.State == model.StatePaused || a.State == model.StateDisabled {
			return
		}
		bs := c.Index.BackfillsOf(a).Backfills
		made := madeFor(bs, a)
		if made == "" {
			return
		}
		over, why := lingers(c, a, grace)
		if !over {
			return
		}
		ev := append([]string{stateNote(a)}, why...)
		if expr := a.Attr(model.AttrExpr); expr != "" {
			ev = append(ev, "watches "+expr)
		}
		msg := fmt.Sprintf("%s %s was made for %s (%s%s) and is still active", a.Kind, nameOr(a), backfillNames(bs), made, tiedBy(a))
		if st := a.Attr(model.AttrAlertState); st != "" {
			msg += " (" + st + ")"
			ev = append(ev, "alert state "+st)
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Evidence: ev, Message: msg})
	})
}

// madeFor says what shows an alert or dashboard was made only for its
// backfills, or "" when nothing does (then it is a normal alert that
// happens to name one, not machinery to remove).
func madeFor(bs []*model.Backfill, a *model.Artifact) string {
	var why []string
	if a.BoolAttr(model.AttrTemporary) {
		why = append(why, "marked temporary")
	}
	for _, b := range bs {
		if declared(b, a) {
			why = append(why, fmt.Sprintf("listed in the assets_to_remove of plan %s", b.ID))
		}
	}
	if a.BoolAttr(model.AttrWatchesOnly) {
		why = append(why, "watches only backfill series")
	}
	return joinAnd(why)
}

// tiedBy says how the artifact was tied to its backfill, "" when the
// plan's assets_to_remove tied it (madeFor says so already).
func tiedBy(a *model.Artifact) string {
	switch a.Correlation {
	case "asset", "declared":
		return ""
	case "", "collector":
		return fmt.Sprintf("; tied by source %q", a.Source)
	case "expression":
		return "; tied by the series its expression selects"
	}
	return "; tied by its " + a.Correlation
}

// declared reports whether the plan lists the artifact in its assets to remove.
func declared(b *model.Backfill, a *model.Artifact) bool {
	for _, u := range b.AssetsToRemove {
		if u == a.URI {
			return true
		}
	}
	return false
}
