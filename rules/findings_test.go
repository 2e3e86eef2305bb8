package rules

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/bfaudit/bfaudit/model"
)

// Staging a finding in the engine's blocks keeps every field Report sets:
// a field added to model.Finding and set by Report must be staged too, or
// this fails. Only the fields later stages set (waiver, history, the precedence fold) are
// left out, and the rule's own fields come back from the rule.
func TestStagingKeepsEveryField(t *testing.T) {
	// Team comes from the config's teams, set by the command after the rules.
	later := map[string]bool{"Unread": true, "FirstSeen": true, "LastSeen": true, "DueAt": true, "Overdue": true, "Waiver": true, "Team": true, "Folded": true}
	r := &Rule{ID: "BF999", Name: "n", Title: "t", Step: model.StepArchived, Remediation: "fix"}
	var f model.Finding
	v := reflect.ValueOf(&f).Elem()
	for i := range v.NumField() {
		fv := v.Field(i)
		switch name := v.Type().Field(i).Name; {
		case later[name]:
		case fv.Kind() == reflect.String:
			fv.SetString("value of " + name)
		case fv.Kind() == reflect.Slice:
			fv.Set(reflect.ValueOf([]string{"one " + name}))
		case fv.Kind() == reflect.Pointer:
			fv.Set(reflect.New(fv.Type().Elem()))
		case fv.CanInt():
			fv.SetInt(3)
		default:
			t.Fatalf("field %s (%s): say here how to fill it", name, fv.Kind())
		}
	}
	f.RuleID, f.RuleName, f.Title, f.Step, f.Remediation = r.ID, r.Name, r.Title, r.Step, r.Remediation
	// A staged fingerprint is always model.Fingerprint's (Report makes
	// it), kept as a number: its text must come back.
	f.Fingerprint = model.Fingerprint(f.RuleID, f.Key, f.ArtifactURI)
	want := f
	want.Evidence = append([]string(nil), f.Evidence...)
	var b findingBlocks
	b.add(r, &f)
	n := 0
	b.close(make([]bool, b.n))
	b.drain(func(got *model.Finding) {
		n++
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("staged and back:\n got %+v\nwant %+v", *got, want)
		}
	})
	if n != 1 {
		t.Errorf("drained %d findings, want 1", n)
	}
}

// The set tells fingerprints apart exactly, whatever their text: two
// spellings of one number are two fingerprints.
func TestFingerprintSet(t *testing.T) {
	s := fingerprintSet{hex: map[uint64]struct{}{}}
	for _, c := range []struct {
		fp  string
		new bool
	}{
		{"b7ec23bd2ac9212c", true}, {"b7ec23bd2ac9212c", false}, {"B7EC23BD2AC9212C", true}, {"B7EC23BD2AC9212C", false},
		{"00000000000000ff", true}, {"ff", true}, {"ff", false}, {"", true}, {"", false}, {"not hex at all!!", true},
	} {
		if got := s.add(c.fp); got != c.new {
			t.Errorf("add(%q) = %v, want %v", c.fp, got, c.new)
		}
	}
}

// A big drain hands memory back before it starts and after each quarter
// of its blocks, and gives every finding not dead, in order; a small one
// never does.
func TestBigDrainReleasesMemoryAndKeepsOrder(t *testing.T) {
	oldFrom, oldRelease := releaseFrom, release
	t.Cleanup(func() { releaseFrom, release = oldFrom, oldRelease })
	calls := 0
	release = func() { calls++ }
	r := &Rule{ID: "BF999", Title: "t"}
	const n = 8*blockLen + 7
	for _, c := range []struct {
		from, calls int
	}{{1, 1 + 5}, {n + 1, 0}} { // the 21,850 not dead fill 5 blocks and part of a sixth
		releaseFrom, calls = c.from, 0
		var b findingBlocks
		for i := range n {
			b.add(r, &model.Finding{ArtifactURI: fmt.Sprint("a://", i), Evidence: []string{"same line"}})
		}
		dead := make([]bool, n)
		for i := range dead {
			dead[i] = i%3 == 1
		}
		b.close(dead)
		i, got := 0, 0
		b.drain(func(f *model.Finding) {
			if i%3 == 1 {
				i++
			}
			if want := fmt.Sprint("a://", i); f.ArtifactURI != want || f.RuleID != "BF999" || f.Evidence[0] != "same line" {
				t.Fatalf("finding %d is %+v, want %s", i, *f, want)
			}
			i++
			got++
		})
		if want := n - n/3; got != want || calls != c.calls {
			t.Errorf("releaseFrom %d: drained %d, want %d, released %d times, want %d", c.from, got, want, calls, c.calls)
		}
	}
}

// The texts of a foldable rule's findings are kept apart until the
// precedence has folded them, then the survivors' are copied out: no
// drained finding refers to the texts kept in doubt, which can go, and
// every text comes back whole.
func TestFoldableTextsKeptApartUntilTheFold(t *testing.T) {
	over := &Rule{ID: "BF999", Title: "over", Supersedes: []Supersede{{Rule: "BF998", As: "also"}}}
	under := &Rule{ID: "BF998", Title: "under"}
	p := newPrecedence([]*Rule{over, under})
	b := findingBlocks{foldable: p}
	add := func(r *Rule, uri, msg string, ev ...string) {
		f := &model.Finding{RuleID: r.ID, Key: "bf-1", ArtifactURI: uri, Message: msg, Evidence: ev}
		f.Fingerprint = model.Fingerprint(f.RuleID, f.Key, f.ArtifactURI)
		b.add(r, f)
	}
	add(over, "a://1", "over a1", "state")
	add(under, "a://1", "under a1", "state", "folded line")
	add(under, "a://2", "under a2", "state", "standing line")
	inDoubt := b.doubt.text // the chunk the foldable findings' texts went to
	if len(inDoubt) == 0 {
		t.Fatal("the foldable rule's texts were not kept apart")
	}
	dead, live, _ := b.settle(p, nil)
	b.close(dead)
	if b.doubt.text != nil || b.doubtTexts != nil {
		t.Error("close kept the texts in doubt")
	}
	lo, hi := uintptr(unsafe.Pointer(&inDoubt[:1][0])), uintptr(unsafe.Pointer(&inDoubt[:1][0]))+uintptr(cap(inDoubt))
	refersToDoubt := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return s != "" && p >= lo && p < hi
	}
	var got []string
	b.drain(func(f *model.Finding) {
		for _, s := range append([]string{f.Message, f.Fingerprint}, f.Evidence...) {
			if refersToDoubt(s) {
				t.Errorf("%s on %s still refers to a text in doubt: %q", f.RuleID, f.ArtifactURI, s)
			}
		}
		got = append(got, fmt.Sprintf("%s %s %q %q", f.RuleID, f.ArtifactURI, f.Message, f.Evidence))
	})
	want := []string{
		`BF999 a://1 "over a1" ["state" "also (BF998): folded line"]`,
		`BF998 a://2 "under a2" ["state" "standing line"]`,
	}
	if live != 2 || !slices.Equal(got, want) {
		t.Errorf("drained %d:\n%s\nwant\n%s", live, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
