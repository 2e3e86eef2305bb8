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
		ID: "BF017", Name: "lingering-feature-flag", Title: "Feature flag made for the backfill still exists after the replay",
		Rationale: "The replay surface includes the feature flags a backfill switched (skip e-mails, replay mode, a special write path). " +
			"Once the replay is over a flag made for it has no purpose; left in place it keeps a special path one click away, and left on it keeps production in replay mode. Its severity is where it is on: off in every environment nothing runs through it (archive it, low); on in production, production still runs the replay's path (high).",
		Practice: rules.PracticeInventory,
		Kinds:    []model.Kind{model.KindFeatureFlag},
		Remediation: "Switch the flag back to its normal position, then archive or delete it (Unleash: archive; flagd: remove its entry; OpenFeature: delete the FeatureFlag or its entry). " +
			"If it is to stay, take it off the backfill (remove the tag or id) and give it an owner.",
		Severity: model.SeverityMedium, Step: model.StepNormalized,
		Ladder: []rules.Rung{
			{Severity: model.SeverityLow, When: "when the flag is off in every environment: nothing runs through it"},
			{Severity: model.SeverityMedium, When: "when it is on outside production, or its system does not say where it is on"},
			{Severity: model.SeverityHigh, When: "when it is on in a production environment"},
		},
		Supersedes: []rules.Supersede{foldsUndeclared},
		Params:     []rules.Param{{Name: "grace", Default: "2d", Description: "time after completion before a backfill's flag counts as lingering"}},
		Check:      lingeringFeatureFlag,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepNormalized), Kind: model.KindFeatureFlag,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("flag")}},
	})
}

// lingeringFeatureFlag flags every flag whose backfills have all
// completed that still exists past the grace (from the last of them to
// complete), archived ones excepted (the flag's State is deleted then). On
// in a production environment it is high (production still runs the
// replay's path), off everywhere low (flagSeverity).
func lingeringFeatureFlag(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		over, why := lingers(c, a, grace)
		if !over {
			return
		}
		where := flagWhere(a)
		c.Report(rules.Issue{Backfill: b, Artifact: a, Severity: flagSeverity(a),
			Message:  fmt.Sprintf("feature flag %s made for %s still exists (%s)", nameOr(a), backfillNames(c.Index.BackfillsOf(a).Backfills), where),
			Evidence: append([]string{stateNote(a), where}, why...)})
	})
}

// flagSeverity is the rung of BF017's ladder a lingering flag stands on.
func flagSeverity(a *model.Artifact) model.Severity {
	switch {
	case a.BoolAttr(model.AttrProduction):
		return model.SeverityHigh
	case a.State == model.StateDisabled && a.Attr(model.AttrEnabledIn) == "":
		return model.SeverityLow
	}
	return model.SeverityMedium
}

// flagWhere says where a flag is on, as its system reports it.
func flagWhere(a *model.Artifact) string {
	on, prod := a.Attr(model.AttrEnabledIn), a.BoolAttr(model.AttrProduction)
	switch {
	case on != "" && prod && !strings.Contains(on, "prod"):
		return "on in " + on + ", a production environment among them"
	case on != "":
		return "on in " + on
	case prod:
		return "on in production"
	case a.State == model.StateEnabled || a.State == model.StateActive:
		return "on"
	}
	return "off everywhere"
}
