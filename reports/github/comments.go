package github

import (
	"fmt"
	"strings"
	"time"
)

// Comments are written once, when the issue changes state, so unlike the
// body they may carry the run's time.

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

func reopenComment(m merged, accepted bool, waiverLabel string, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "bfaudit (%s): reopening.", now.UTC().Format(time.RFC3339))
	list := func(head string, items []item) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n\n%s\n", head)
		for _, it := range items {
			fmt.Fprintf(&b, "\n- **%s** %s", it.Rule, markdownText(it.Title))
			if it.Artifact != "" {
				b.WriteString(": " + codeSpan(it.Artifact))
			}
		}
	}
	list("Found again after being resolved:", m.cameBack)
	if accepted {
		list("New since the remaining items were accepted (those stay accepted):", m.fresh)
	} else {
		list("New:", m.fresh)
	}
	if len(m.cameBack) == 0 && len(m.fresh) == 0 {
		fmt.Fprintf(&b, "\n\nThe issue was closed while items were still open. To accept them instead, close it with the label %s.", codeSpan(waiverLabel))
	}
	return b.String()
}
