package rules

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// Meta rules report on the engine's own inputs from config: waivers and
// user rules. They have metadata like every rule (list, explain, docs,
// severity overrides, disabling) but their findings are made by the
// engine while it applies waivers and evaluates user rules. Their findings
// block no lifecycle step: they are about the audit's config, not about a
// backfill's machinery.
const (
	ExpiredWaiverID = "BF900"
	StaleWaiverID   = "BF901"
	UserRuleErrorID = "BF902"
)

func init() {
	noop := func(*Context) {}
	Register(&Rule{
		ID: ExpiredWaiverID, Name: "expired-waiver", Title: "Waiver has expired",
		Rationale: "A waiver is an accepted exception with an end date, not a second way of disabling a rule. " +
			"Once it expires the finding it hid counts again, and the waiver is reported so that someone renews it with a new decision or removes it: " +
			"completion of the replay is not the same as completion of cleanup.",
		Practice:    PracticeNotDone,
		Remediation: "Fix what the waiver hid, then delete the waiver; or, if the exception still holds, renew it with a new reason, approver and expiry.",
		Severity:    model.SeverityLow, Step: model.StepPlan, Check: noop, meta: true,
		Remedy: &remedy.Recipe{Build: remedy.WaiverEdit("Fix what the waiver hid and delete the waiver, or renew it with a new reason, approver and expiry."),
			Examples: []remedy.ExampleOf{remedy.ExampleConfig(42)}},
	})
	Register(&Rule{
		ID: StaleWaiverID, Name: "stale-waiver", Title: "Waiver matches no finding",
		Rationale: "A waiver that matches nothing either outlived what it excused (the machinery was cleaned up) or was written wrong (a typo in the backfill id or glob) and hides nothing it was meant to. " +
			"Either way it should go, so the waiver list stays a true list of open exceptions. It is only reported when every source answered: a finding missing because its source failed has not been fixed.",
		Practice:    PracticeNotDone,
		Remediation: "Delete the waiver from the config, or correct its fingerprint, rule or selector.",
		Severity:    model.SeverityInfo, Step: model.StepPlan, Check: noop, meta: true,
		Remedy: &remedy.Recipe{Build: remedy.WaiverEdit("Delete the waiver, or correct its fingerprint, rule or selector."),
			Examples: []remedy.ExampleOf{remedy.ExampleConfig(57)}},
	})
	Register(&Rule{
		ID: UserRuleErrorID, Name: "user-rule-error", Title: "User rule failed to evaluate",
		Rationale: "A user rule that errors at run time (a missing map key, a bad conversion) silently checks nothing for the objects it failed on; " +
			"the audit says so instead of reporting a clean estate it did not check.",
		Practice:    PracticeNotDone,
		Remediation: "Fix the expression in rules.custom: guard optional values with has(), e.g. has(artifact.expires_at) && artifact.expires_at < now, and `key in map` before map[key].",
		Severity:    model.SeverityLow, Step: model.StepPlan, Check: noop, meta: true,
		Remedy: &remedy.Recipe{Build: remedy.UserRuleError, Examples: []remedy.ExampleOf{remedy.ExampleConfig(70)}},
	})
}
