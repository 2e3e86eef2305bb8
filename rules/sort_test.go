package rules

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// SortFindings, which moves findings along the cycles of the sorted
// permutation, orders them as a plain stable sort does, duplicates of the
// sort key keeping their order.
func TestSortFindingsInPlace(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 7, 1000} {
		fs := make([]model.Finding, n)
		for i := range fs {
			fs[i] = model.Finding{Severity: model.Severity(1 + rnd.IntN(5)), BackfillID: fmt.Sprint("BF-", rnd.IntN(4)),
				RuleID: fmt.Sprint("BF00", rnd.IntN(3)), ArtifactURI: fmt.Sprint("u", rnd.IntN(3)), Message: fmt.Sprint(i)}
		}
		want := slices.Clone(fs)
		slices.SortStableFunc(want, func(a, b model.Finding) int {
			if a.Severity != b.Severity {
				return cmp.Compare(b.Severity, a.Severity)
			}
			return cmp.Or(cmp.Compare(a.BackfillID, b.BackfillID), cmp.Compare(a.RuleID, b.RuleID), cmp.Compare(a.ArtifactURI, b.ArtifactURI))
		})
		SortFindings(fs)
		for i := range fs {
			if fs[i].Message != want[i].Message {
				t.Fatalf("n=%d: place %d holds finding %s, want %s", n, i, fs[i].Message, want[i].Message)
			}
		}
	}
}

// Sorting allocates the index only (4 bytes a finding), not a second
// slice of findings.
func TestSortFindingsAllocations(t *testing.T) {
	fs := make([]model.Finding, 10_000)
	for i := range fs {
		fs[i] = model.Finding{Severity: model.SeverityLow, ArtifactURI: fmt.Sprint(len(fs) - i)}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	SortFindings(fs)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(fs))*8 {
		t.Errorf("sorting %d findings allocated %d bytes", len(fs), got)
	}
}
