package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF006", Name: "lingering-queue", Title: "Temporary queue or subscription still there after the backfill",
		Rationale:   "A temporary retry queue that stays subscribed keeps receiving and holding messages, and its consumers keep acting on them long after the replay is over.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindQueue, model.KindSubscription},
		Remediation: "Drain and delete the queue or detach and delete the subscription; remove bindings and exchanges that only served it.",
		Severity:    model.SeverityMedium, Ladder: upRung(model.SeverityMedium, "when the queue or subscription holds no message",
			"while it holds messages: its consumers would still act on them"),
		Step:       model.StepRetired,
		Supersedes: []rules.Supersede{foldsUndeclared},
		Params:     []rules.Param{{Name: "grace", Default: "2d", Description: "time after completion before a backfill queue counts as lingering"}},
		Check:      lingeringQueue,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepRetired), Kind: model.KindQueue,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("pubsub-sub"), remedy.ExampleOn("rabbit-queue")}},
	})
}

func lingeringQueue(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if a.BoolAttr(model.AttrDetached) {
			return
		}
		over, why := c.GraceOver(b, grace)
		if !over {
			return
		}
		ev := []string{stateNote(a), why}
		var load []string
		n, _ := a.IntAttr(model.AttrMessages)
		if n > 0 {
			load = append(load, plural(n, "message", "messages")+" waiting")
		}
		if n, ok := a.IntAttr(model.AttrConsumers); ok && n > 0 {
			load = append(load, plural(n, "consumer", "consumers")+" attached")
		}
		msg := fmt.Sprintf("%s %s is still there after the backfill", a.Kind, nameOr(a))
		if len(load) > 0 {
			msg += " (" + joinAnd(load) + ")"
			ev = append(ev, load...)
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Message: msg, Evidence: ev, Severity: up(n > 0, model.SeverityMedium)})
	})
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
