package github

import (
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// OverdueLabel is on a backfill's issue while one of its open findings is
// past its due date (docs/reports/due.md), and taken off once none is: the
// issue says what the report says, like its body.
const OverdueLabel = "overdue"

// overdue reports whether any open, unwaived finding of w is past due.
func overdue(w *work) bool {
	return slices.ContainsFunc(w.findings, func(f model.Finding) bool { return f.Overdue && !f.Waived() })
}

// overdueLabels is labels with the overdue label on or off as want says,
// and whether that changed them.
func overdueLabels(labels []string, want bool) ([]string, bool) {
	has := slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(l, OverdueLabel) })
	switch {
	case want && !has:
		return append(slices.Clone(labels), OverdueLabel), true
	case !want && has:
		return slices.DeleteFunc(slices.Clone(labels), func(l string) bool { return strings.EqualFold(l, OverdueLabel) }), true
	}
	return labels, false
}
