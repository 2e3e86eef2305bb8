package remedy

import "github.com/bfaudit/bfaudit/model"

// Remedies of the findings about the audit's own config: waivers and user
// rules, fixed by editing the config file.

// WaiverEdit says what to do with a waiver, in the config's waivers.
func WaiverEdit(what string) Builder {
	return func(r *Remedy, f model.Finding, _ Facts) {
		if isKeepLabel(f) {
			r.Human = &Human{Step: model.StepPlan, Where: keepWhere(f),
				What: "Fix what the keep label excused and remove the label; or, if the artifact must stay, renew it with a new date and reason."}
			return
		}
		r.Human = &Human{Step: model.StepPlan, Where: locationOr(f, "the config file, waivers"), What: what}
	}
}

// UserRuleError: the user rule's expression to guard.
func UserRuleError(r *Remedy, f model.Finding, _ Facts) {
	r.Human = &Human{Step: model.StepPlan, Where: locationOr(f, "the config file, rules.custom"),
		What: "Fix the user rule's expression: guard optional values with has() and map keys with `key in map`."}
}
