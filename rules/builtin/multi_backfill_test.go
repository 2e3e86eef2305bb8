package builtin_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// An artifact naming several backfills is tied to the first id its system
// wrote and lists the rest in other_backfills. Its verdict must not
// depend on that order: every rule judging alerts, silences and flags is
// run over every order of 2 to 4 ids, in every mix of backfill states,
// and must say the same thing each time.

// multiState is what one backfill named by the artifacts is, at now.
type multiState int

const (
	longDone  multiState = iota // completed a month ago: grace long over
	justDone                    // completed 12 hours ago: inside every grace (1d, 2d)
	replaying                   // still running
	unknownID                   // no plan or scheduler describes it
)

var multiStates = []multiState{longDone, justDone, replaying, unknownID}

// multiIDs and their plans' expiries: each later than the one before, so
// BF112's window depends on which are still replaying.
var multiIDs = []string{"BF-11", "BF-12", "BF-13", "BF-14"}

func multiExpiry(i int) time.Time { return now.Add(time.Duration(10+30*i) * 24 * time.Hour) }

// multiRules are the rules that judge artifacts carrying other_backfills.
var multiRules = []string{"BF007", "BF016", "BF112", "BF017", "BF018"}

// multiEstate has a plan for each known id in states and, naming the ids
// in the order given (lower-case, as label values are written), a
// Prometheus alert watching only their series, an Alertmanager silence of
// them ending between BF-12's and BF-13's expiries, a flag and a guard.
func multiEstate(states []multiState, order []int) *estate {
	e := monEstate()
	e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: srcFlags, System: "unleash", Status: model.CoverageOK})
	for i, s := range states {
		if s == unknownID {
			continue
		}
		b := goodPlan(multiIDs[i])
		b.Expiry = multiExpiry(i)
		switch s {
		case longDone:
			completed(&b)
		case justDone:
			completed(&b)
			b.Timeline.CompletedAt = now.Add(-12 * time.Hour)
		case replaying:
			running(&b)
		}
		if i == 1 {
			sensitive(&b) // raises the guard, whoever is written first
		}
		e.est.Backfills = append(e.est.Backfills, b)
	}
	ids := make([]string, len(order))
	for k, i := range order {
		ids[k] = strings.ToLower(multiIDs[i])
	}
	tie := func(a model.Artifact) model.Artifact {
		a.BackfillID = ids[0]
		a.SetAttr(model.AttrOtherBackfills, strings.Join(ids[1:], ","))
		return a
	}
	e.artifact(tie(promAlert()))
	e.artifact(tie(silence(multiExpiry(1).Add(5 * 24 * time.Hour))))
	e.artifact(tie(flagOf("shared-replay-mode")))
	e.artifact(tie(flagOf("shared-suppress-emails")))
	return e
}

// verdict is what a rule says of the shared artifacts, independent of
// which backfill a finding is filed under.
type verdict struct {
	fired    int
	severity []model.Severity
	named    string // the backfill ids the findings name, sorted
}

var anyID = regexp.MustCompile(`BF-1[1-4]`)

func verdictOf(fs []model.Finding, rule string) verdict {
	var v verdict
	named := map[string]bool{}
	for _, f := range ofRule(fs, rule) {
		v.fired++
		v.severity = append(v.severity, f.Severity)
		for _, id := range anyID.FindAllString(f.Message+"\n"+strings.Join(f.Evidence, "\n"), -1) {
			named[id] = true
		}
	}
	slices.Sort(v.severity)
	for id := range named {
		v.named += id + " "
	}
	v.named = strings.Join(strings.Fields(sortWords(v.named)), " ")
	return v
}

func sortWords(s string) string {
	w := strings.Fields(s)
	slices.Sort(w)
	return strings.Join(w, " ")
}

func permutations(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			q := append(append(append([]int{}, p[:at]...), n-1), p[at:]...)
			out = append(out, q)
		}
	}
	return out
}

// mixes lists every assignment of multiStates to n backfills.
func mixes(n int) [][]multiState {
	if n == 0 {
		return [][]multiState{nil}
	}
	var out [][]multiState
	for _, m := range mixes(n - 1) {
		for _, s := range multiStates {
			out = append(out, append(append([]multiState{}, m...), s))
		}
	}
	return out
}

func TestSharedArtifactVerdictIgnoresIDOrder(t *testing.T) {
	// Only the rules under test run: thousands of estates are evaluated.
	only := rules.Options{Only: func(r *rules.Rule) bool { return slices.Contains(multiRules, r.ID) }}
	for n := 2; n <= 4; n++ {
		for _, mix := range mixes(n) {
			var first map[string]verdict
			for _, order := range permutations(n) {
				fs := evaluate(t, multiEstate(mix, order), now, only)
				got := map[string]verdict{}
				for _, r := range multiRules {
					got[r] = verdictOf(fs, r)
				}
				if first == nil {
					first = got
					checkSharedVerdict(t, mix, got)
					continue
				}
				for _, r := range multiRules {
					if got[r].fired != first[r].fired || got[r].named != first[r].named || !slices.Equal(got[r].severity, first[r].severity) {
						t.Fatalf("%s over %v written in order %v: %+v, but in the first order %+v", r, mix, order, got[r], first[r])
					}
				}
			}
		}
	}
}

// checkSharedVerdict says what each rule must conclude for a mix: the
// lingering rules fire only once every backfill is known and over, past
// the grace from the last to complete, and then name them all; BF112
// fires while one replays whose expiry is before the silence's end, and
// none is unknown.
func checkSharedVerdict(t *testing.T, mix []multiState, got map[string]verdict) {
	t.Helper()
	all := strings.Join(multiIDs[:len(mix)], " ")
	lingering, replayingLate, unknown := true, false, false
	latestRunning := -1
	for i, s := range mix {
		switch s {
		case justDone:
			lingering = false
		case replaying:
			lingering = false
			latestRunning = i
		case unknownID:
			lingering, unknown = false, true
		}
	}
	replayingLate = latestRunning >= 2 // BF-13 and BF-14 expire after the silence ends
	for _, r := range []string{"BF007", "BF017", "BF018"} {
		want := 0
		if lingering {
			want = 1 // the guard's own BF017 is folded into its BF018
		}
		if got[r].fired != want {
			t.Errorf("%s over %v: %d findings, want %d", r, describeMix(mix), got[r].fired, want)
		}
		if want == 1 && got[r].named != all {
			t.Errorf("%s over %v names %q, want %q", r, describeMix(mix), got[r].named, all)
		}
	}
	if lingering && (got["BF016"].fired != 1 || got["BF016"].named != all) {
		t.Errorf("BF016 over %v: %+v, want one naming %s", describeMix(mix), got["BF016"], all)
	}
	if !lingering && got["BF016"].fired != 0 && (unknown || latestRunning >= 0) {
		t.Errorf("BF016 over %v fired while a backfill is not known over: %+v", describeMix(mix), got["BF016"])
	}
	wantBF112 := latestRunning >= 0 && !unknown && !replayingLate
	if (got["BF112"].fired == 1) != wantBF112 {
		t.Errorf("BF112 over %v: %+v, want fired=%v", describeMix(mix), got["BF112"], wantBF112)
	}
	if got["BF016"].fired+got["BF112"].fired > 1 {
		t.Errorf("BF016 and BF112 both judge the silence over %v", describeMix(mix))
	}
	if lingering && len(mix) > 1 && got["BF018"].severity[0] != model.SeverityCritical {
		t.Errorf("BF018 over %v: severity %v, want critical (BF-12 is customer data)", describeMix(mix), got["BF018"].severity)
	}
}

func describeMix(mix []multiState) string {
	names := map[multiState]string{longDone: "done", justDone: "just done", replaying: "running", unknownID: "unknown"}
	parts := make([]string, len(mix))
	for i, s := range mix {
		parts[i] = fmt.Sprintf("%s %s", multiIDs[i], names[s])
	}
	return strings.Join(parts, ", ")
}
