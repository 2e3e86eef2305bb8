package github

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Comments are written once, when the issue changes state, so unlike the
// body they may carry the time: the audit's (--now), not the wall clock,
// so that a re-run of an old audit tells the same story.

func closeComment(items []item, now time.Time) string {
	resolved, waived := 0, 0
	for _, it := range items {
		if it.State == stateResolved {
			resolved++
		} else {
			waived++
		}
	}
	msg := fmt.Sprintf("bfaudit (%s): nothing is left open (%d resolved", now.UTC().Format(time.RFC3339), resolved)
	if waived > 0 {
		msg += fmt.Sprintf(", %d waived or accepted", waived)
	}
	return msg + "), closing. This issue is reopened if any finding comes back."
}

// commentSettings are the settings a reopen comment explains itself by.
type commentSettings struct {
	waiverLabel string
	acceptDays  int
	maxSeverity model.Severity
}

func (s *Sink) commentSettings() commentSettings {
	return commentSettings{waiverLabel: s.cfg.WaiverLabel, acceptDays: s.cfg.acceptDays(), maxSeverity: s.cfg.maxSeverity()}
}

// reopenComment says why a closed issue is open again: an acceptance that
// was not allowed, ran out or could not cover everything, findings that
// came back or are new, or, when none of these, a person closing it with
// items still open.
func reopenComment(m merged, cs commentSettings, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "bfaudit (%s): reopening.", now.UTC().Format(time.RFC3339))
	list := func(head string, items []item) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n\n%s\n", head)
		for _, it := range items {
			fmt.Fprintf(&b, "\n- **%s**", it.Rule)
			if it.Severity != "" {
				fmt.Fprintf(&b, " (%s)", it.Severity)
			}
			b.WriteString(" " + markdownText(it.Title))
			if it.Artifact != "" {
				b.WriteString(": " + codeSpan(it.Artifact))
			}
		}
	}
	said := len(m.cameBack) + len(m.fresh)

	if v := m.label; v != nil {
		switch {
		case !v.allowed:
			b.WriteString("\n\n" + v.why + ".")
			said++
		case !now.Before(v.acc.expires(cs.acceptDays)) && !lapsedBy(m.items, v.acc):
			fmt.Fprintf(&b, "\n\nThe label %s was applied by %s on %s; an acceptance lasts %d days (github.accept_days), "+
				"so it ran out on %s and accepts nothing. To accept again, close the issue with the label once more.",
				codeSpan(cs.waiverLabel), codeSpan(v.acc.By), day(v.acc.At), cs.acceptDays, day(v.acc.expires(cs.acceptDays)))
			said++
		}
	}
	refused := filter(m.items, func(it item) bool { return it.refused })
	list(fmt.Sprintf("Not accepted: a label may accept findings up to severity %s (github.accept_max_severity); "+
		"these need a waiver in the config, reviewed like code:", cs.maxSeverity), refused)
	said += len(refused)
	for _, acc := range lapsedAcceptances(m.items) {
		lapsed := filter(m.items, func(it item) bool { return it.lapsed != nil && it.lapsed.same(acc) })
		list(fmt.Sprintf("The acceptance by %s on %s ran out on %s (github.accept_days: %d); these count again:",
			codeSpan(acc.By), day(acc.At), day(acc.expires(cs.acceptDays)), cs.acceptDays), lapsed)
		said += len(lapsed)
	}
	list("Found again after being resolved:", m.cameBack)
	if slices.ContainsFunc(m.items, func(it item) bool { return it.State == stateAccepted }) {
		list("New since the remaining items were accepted (those stay accepted):", m.fresh)
	} else {
		list("New:", m.fresh)
	}
	if said == 0 {
		fmt.Fprintf(&b, "\n\nThe issue was closed while items were still open. To accept them instead, close it with the label %s.", codeSpan(cs.waiverLabel))
	}
	return b.String()
}

func filter(items []item, keep func(item) bool) []item {
	var out []item
	for _, it := range items {
		if keep(it) {
			out = append(out, it)
		}
	}
	return out
}

// lapsedAcceptances lists, once each, the acceptances that ran out this
// run on items still open.
func lapsedAcceptances(items []item) []acceptance {
	var out []acceptance
	for _, it := range items {
		if it.lapsed != nil && it.State != stateAccepted && !slices.ContainsFunc(out, it.lapsed.same) {
			out = append(out, *it.lapsed)
		}
	}
	return out
}

// lapsedBy reports whether acc already shows as an acceptance that ran out
// on some item, so the comment does not say it twice.
func lapsedBy(items []item, acc acceptance) bool {
	return slices.ContainsFunc(lapsedAcceptances(items), acc.same)
}
