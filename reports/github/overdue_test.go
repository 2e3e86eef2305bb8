package github

import (
	"slices"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// The overdue label goes on the issue while a finding is past due, stays
// through reruns without a write, and comes off once none is.
func TestOverdueLabelFollowsTheFindings(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	due := func(over bool) func(*model.Finding) { return func(fd *model.Finding) { fd.Overdue = over } }
	runSync(t, s, newEstate().backfill("BF-1", "").finding("BF-1", "BF003", model.StepRetired, uri(1), due(false)))
	if slices.Contains(f.issues[0].labels, OverdueLabel) {
		t.Fatalf("labels %v before the due date", f.issues[0].labels)
	}
	e := newEstate().backfill("BF-1", "").finding("BF-1", "BF003", model.StepRetired, uri(1), due(true))
	runSync(t, s, e)
	if !slices.Contains(f.issues[0].labels, OverdueLabel) || !slices.Contains(f.issues[0].labels, DefaultLabel) {
		t.Fatalf("labels %v once overdue, want %q added to the others", f.issues[0].labels, OverdueLabel)
	}
	if res := runSync(t, s, e); res.Writes != 0 {
		t.Errorf("a rerun wrote %d times", res.Writes)
	}
	runSync(t, s, newEstate().backfill("BF-1", "").finding("BF-1", "BF003", model.StepRetired, uri(1), due(false)))
	if slices.Contains(f.issues[0].labels, OverdueLabel) {
		t.Errorf("labels %v after the finding stopped being overdue", f.issues[0].labels)
	}
}
