// Package builtin holds bfaudit's built-in rules, one file per rule, each
// registered in init with its metadata and its remedy (rules.Rule.Remedy).
// Import it for its side effect.
package builtin

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// stateNote says what state an artifact is in, for evidence. The source
// is a name from the config ("exports"), so it is called a source: "is
// active in exports" read to owners as if the artifact were in some export.
func stateNote(a *model.Artifact) string {
	if a.State == "" {
		return fmt.Sprintf("%s %s is reported by source %q", a.Kind, a.URI, a.Source)
	}
	return fmt.Sprintf("%s %s is %s, as source %q reports it", a.Kind, a.URI, a.State, a.Source)
}

func day(t interface{ Format(string) string }) string { return t.Format("2006-01-02") }

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// unreadable reports a plan that failed to parse and was kept only by id;
// its parse error is already reported, so governance rules skip it.
func unreadable(b *model.Backfill) bool {
	for _, n := range b.Notes {
		if strings.HasPrefix(n, "plan could not be read") {
			return true
		}
	}
	return false
}

// plans calls fn for every backfill described by a readable plan file: the
// governance rules judge what the plan declares.
func plans(ix *correlate.Index, fn func(b *model.Backfill)) {
	for _, id := range ix.IDs {
		b := ix.Backfills[id]
		if b.Origin == model.OriginPlan && !unreadable(b) {
			fn(b)
		}
	}
}

// beforeReplay reports whether a plan's replay has not finished yet. Rules
// about how a replay runs (concurrency, strategy, side effects, trial
// interval, write mode) only judge such plans: once the replay is over the
// advice can no longer change anything, and cleanup rules take over.
func beforeReplay(b *model.Backfill) bool { return !b.Status.Completed() }

// unplanned calls fn for every scheduler object of a backfill that no plan
// describes, while it runs or is paused: the plan rules judge what the
// scheduler says in place of the missing plan. Findings rest on the
// scheduler's unit.
func unplanned(ix *correlate.Index, fn func(b *model.Backfill, v model.SchedulerView, unit *model.Location)) {
	for _, id := range ix.IDs {
		b := ix.Backfills[id]
		if b.Origin != model.OriginScheduler {
			continue
		}
		for _, v := range b.Scheduled {
			if v.Running || v.Paused {
				unit := v.Source
				fn(b, v, &unit)
			}
		}
	}
}

// viewObject is the finding URI of a scheduler object's setting.
func viewObject(v model.SchedulerView, key string) string {
	return "scheduler:" + v.Source.String() + "#" + key
}

// classifiedNote is the evidence line for a backfill on classified data.
func classifiedNote(b *model.Backfill) string {
	return fmt.Sprintf("backfill %s touches %s data", b.ID, b.Classification)
}

func joinOr(items []string) string {
	if len(items) < 2 {
		return joinAnd(items)
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// Precedence shared by several rules (rules.Rule.Supersedes): BF102's "no
// expiry" on a grant or credential that BF003 or BF004 already asks to
// revoke, and BF014's "missing from the plan" on machinery that a rule
// already asks to remove, are one more line of that finding's evidence.
var (
	foldsNotTimeBound = rules.Supersede{Rule: "BF102", As: "not time-bound"}
	foldsUndeclared   = rules.Supersede{Rule: "BF014", As: "missing from the plan"}
)

// accessLadder is the ladder of the rules on elevated access left in
// place (BF003, BF004, BF022): high, critical on classified data.
func accessLadder(what string) []rules.Rung {
	return []rules.Rung{
		{Severity: model.SeverityHigh, When: "while " + what + " made for a backfill is still usable after it"},
		{Severity: model.SeverityCritical, When: "on classified data: financial, customer, security, compliance"},
	}
}

// accessSeverity is the rung of accessLadder a backfill puts a finding on.
func accessSeverity(b *model.Backfill) model.Severity {
	if b != nil && b.Classification.Classified() {
		return model.SeverityCritical
	}
	return model.SeverityHigh
}

// visibleData reports whether a backfill is on customer-visible data
// (financial or customer), the rung up of the rules about effects on data
// people see (BF018, BF021, BF024, BF025).
func visibleData(b *model.Backfill) bool {
	return b != nil && (b.Classification == model.ClassFinancial || b.Classification == model.ClassCustomer)
}

// upRung is a two-rung ladder: base when, one level up when raised.
func upRung(base model.Severity, when, raised string) []rules.Rung {
	return []rules.Rung{{Severity: base, When: when}, {Severity: base + 1, When: raised}}
}

// up is the rung of an upRung ladder: one level above base when raised.
func up(raised bool, base model.Severity) model.Severity {
	if raised {
		return base + 1
	}
	return base
}
