package github

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

func threeBackfills() *estate {
	return newEstate().
		backfill("BF-1", "team-payments").
		backfill("BF-2", "ghost-team").
		backfill("BF-3", "").
		finding("BF-1", "BF005", model.StepRetired, "bigquery://proj-a/tmp/bf_1_tbl").
		finding("BF-1", "BF003", model.StepAccessRevoked, "gcp-iam://proj-a/roles/editor/sa-bf1", func(f *model.Finding) {
			f.Severity, f.Source, f.Scope = model.SeverityHigh, "iam", "proj-a"
		}).
		finding("BF-1", "BF008", model.StepArchived, "").
		finding("BF-2", "BF001", model.StepNormalized, "airflow://prod/dags/bf_2_replay", func(f *model.Finding) { f.Source, f.Scope = "airflow", "" }).
		finding("BF-3", "BF006", model.StepRetired, "pubsub://proj-a/subscriptions/bf-3-retry").
		// config-waived only: no issue for BF-4
		finding("BF-4", "BF002", model.StepRetired, "airflow://prod/dags/bf_4", func(f *model.Finding) {
			f.Waiver = &model.Waiver{Reason: "kept as runbook", Origin: "config"}
		}).
		// no backfill id: nowhere to file it
		finding("", "BF012", model.StepRetired, "bigquery://proj-a/tmp/unowned")
}

func TestFirstRunFilesOneIssuePerBackfill(t *testing.T) {
	f := newFakeGitHub(t)
	f.addIssue(fakeIssue{title: "a labelled pull request", labels: []string{"bfaudit"}, pull: true})
	f.addIssue(fakeIssue{title: "labelled by hand, no marker", labels: []string{"bfaudit"}})
	s, _ := newTestSink(t, f)

	res := runSync(t, s, threeBackfills())

	if res.Created != 3 || res.Writes != 3 || res.Reads != 1 {
		t.Fatalf("created %d with %d writes and %d reads, want 3, 3, 1", res.Created, res.Writes, res.Reads)
	}
	issues, _ := f.snapshot()
	byID := map[string]fakeIssue{}
	for _, is := range issues[2:] {
		m, ok := parseMarker(is.body)
		if !ok {
			t.Fatalf("issue #%d has no marker:\n%s", is.number, is.body)
		}
		byID[m.Backfill] = is
		if !strings.EqualFold(strings.Join(is.labels, ","), "bfaudit") {
			t.Errorf("%s labels = %v, want [bfaudit]", m.Backfill, is.labels)
		}
	}
	if len(byID) != 3 || byID["BF-4"].number != 0 {
		t.Fatalf("issues for %v, want BF-1, BF-2, BF-3", keys(byID))
	}
	bf1 := byID["BF-1"]
	if strings.Join(bf1.assignees, ",") != "alice" {
		t.Errorf("BF-1 assignees = %v, want [alice] from the owner map", bf1.assignees)
	}
	if !strings.Contains(bf1.title, "BF-1") {
		t.Errorf("BF-1 title %q does not name the backfill", bf1.title)
	}
	// lifecycle order: access revoked (BF003) before archived (BF008) before retired (BF005)
	i3, i8, i5 := strings.Index(bf1.body, "**BF003**"), strings.Index(bf1.body, "**BF008**"), strings.Index(bf1.body, "**BF005**")
	if i3 < 0 || i8 < i3 || i5 < i8 {
		t.Errorf("checklist not in lifecycle order (BF003 %d, BF008 %d, BF005 %d):\n%s", i3, i8, i5, bf1.body)
	}
	for _, want := range []string{"- [ ] **BF005**", "Evidence: evidence one", "Fix: remove", "`bigquery://proj-a/tmp/bf_1_tbl`"} {
		if !strings.Contains(bf1.body, want) {
			t.Errorf("BF-1 body lacks %q:\n%s", want, bf1.body)
		}
	}
	if bf2 := byID["BF-2"]; len(bf2.assignees) != 0 || !strings.Contains(bf2.body, "ghost-team: no GitHub login in the owner map") {
		t.Errorf("BF-2 (owner not in the map) assignees %v, body:\n%s", bf2.assignees, bf2.body)
	}
	if bf3 := byID["BF-3"]; len(bf3.assignees) != 0 || !strings.Contains(bf3.body, "unknown, so the issue is unassigned") {
		t.Errorf("BF-3 (no owner) assignees %v, body:\n%s", bf3.assignees, bf3.body)
	}
	if len(res.IssueURLs) != 3 || !strings.HasSuffix(res.IssueURLs["BF-1"], "/issues/"+itoa(bf1.number)) {
		t.Errorf("IssueURLs = %v", res.IssueURLs)
	}
}

func TestUnchangedRerunMakesNoWrites(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := threeBackfills()
	runSync(t, s, e)
	f.resetCounts()

	res := runSync(t, s, e)

	reads, writes := f.counts()
	if writes != 0 || res.Writes != 0 || res.Unchanged != 3 {
		t.Fatalf("re-run made %d writes (sink counted %d), unchanged %d; want 0 writes, 3 unchanged", writes, res.Writes, res.Unchanged)
	}
	if reads != 1 || res.Reads != 1 {
		t.Errorf("re-run made %d reads (sink counted %d), want 1 list call", reads, res.Reads)
	}
}

func TestResolution(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := threeBackfills()
	runSync(t, s, e)
	bf1 := issueFor(t, f, "BF-1")

	t.Run("partial: a resolved item is ticked, the issue stays open", func(t *testing.T) {
		res := runSync(t, s, e.without("bigquery://proj-a/tmp/bf_1_tbl"))
		is := issueFor(t, f, "BF-1")
		if res.Edited != 1 || res.Closed != 0 || res.Commented != 0 || res.Writes != 1 {
			t.Fatalf("result %+v, want one edit and nothing else", res)
		}
		if !strings.Contains(is.body, "- [x] **BF005**") || !strings.Contains(is.body, "(resolved)") || is.state != "open" {
			t.Errorf("state %s, body:\n%s", is.state, is.body)
		}
		if !strings.Contains(is.body, "- [ ] **BF003**") {
			t.Errorf("open item lost its box:\n%s", is.body)
		}
	})
	t.Run("full: the issue closes with a comment", func(t *testing.T) {
		res := runSync(t, s, e.without("gcp-iam://proj-a/roles/editor/sa-bf1").without(""))
		is := issueFor(t, f, "BF-1")
		if res.Closed != 1 || res.Commented != 1 || res.Writes != 3 {
			t.Fatalf("result %+v, want one close, one comment, one edit clearing it from the marker", res)
		}
		if strings.Contains(issueFor(t, f, "BF-1").body, `"pending"`) {
			t.Errorf("the comment is in, but the marker still owes it:\n%s", issueFor(t, f, "BF-1").body)
		}
		if is.state != "closed" || is.stateReason != "completed" || strings.Contains(is.body, "- [ ]") {
			t.Errorf("state %s (%s), body:\n%s", is.state, is.stateReason, is.body)
		}
		if c := commentsOn(f, bf1.number); len(c) != 1 || !strings.Contains(c[0], "nothing is left open (3 resolved)") {
			t.Errorf("comments %q", c)
		}
		if again := runSync(t, s, e); again.Writes != 0 {
			t.Errorf("re-run after closing made %d writes", again.Writes)
		}
	})
	t.Run("regression: the issue reopens with a comment", func(t *testing.T) {
		e.finding("BF-1", "BF005", model.StepRetired, "bigquery://proj-a/tmp/bf_1_tbl")
		res := runSync(t, s, e)
		is := issueFor(t, f, "BF-1")
		if res.Reopened != 1 || res.Commented != 1 || is.state != "open" {
			t.Fatalf("result %+v, state %s", res, is.state)
		}
		c := commentsOn(f, bf1.number)
		if len(c) != 2 || !strings.Contains(c[1], "Found again after being resolved") || !strings.Contains(c[1], "bf_1_tbl") {
			t.Errorf("comments %q", c)
		}
		if !strings.Contains(is.body, "- [ ] **BF005**") || !strings.Contains(is.body, "- [x] **BF003**") {
			t.Errorf("body:\n%s", is.body)
		}
		if again := runSync(t, s, e); again.Writes != 0 {
			t.Errorf("re-run after reopening made %d writes", again.Writes)
		}
	})
	if issues, _ := f.snapshot(); len(issues) != 3 {
		t.Errorf("%d issues after the lifecycle, want 3", len(issues))
	}
}

func TestWaiverLabel(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := threeBackfills()
	runSync(t, s, e)
	bf1 := issueFor(t, f, "BF-1")
	f.clock.Advance(time.Hour)
	labelledAt := f.clock.Now()
	f.closeByHandAs("carol", bf1.number, "bfaudit:accepted")

	// Recorded once: one read of the issue's events (who applied the
	// label, and when) and one edit of the closed issue's body.
	res := runSync(t, s, e)
	if res.Writes != 1 || res.Edited != 1 || res.Reads != 2 || res.Reopened != 0 || issueFor(t, f, "BF-1").state != "closed" {
		t.Fatalf("accepted issue: %+v", res)
	}
	if len(res.Waived) != 1 || res.Waived[0].BackfillID != "BF-1" || len(res.Waived[0].Fingerprints) != 3 {
		t.Fatalf("Waived = %+v, want BF-1's 3 findings", res.Waived)
	}
	wv := res.Waived[0]
	if wv.Approver != "carol" || !wv.Accepted.Equal(labelledAt) || !wv.Expires.Equal(labelledAt.AddDate(0, 0, 90)) {
		t.Errorf("waiver by %q at %s until %s; want carol at %s for 90 days", wv.Approver, wv.Accepted, wv.Expires, labelledAt)
	}
	if body := issueFor(t, f, "BF-1").body; strings.Count(body, "(accepted on this issue by `carol` on 2025-03-10, until 2025-06-08)") != 3 {
		t.Errorf("body does not say who accepted until when:\n%s", body)
	}
	if again := runSync(t, s, e); again.Writes != 0 || again.Reads != 1 || len(again.Waived) != 1 {
		t.Errorf("re-run after recording: %+v, want one list call and the acceptance kept", again)
	}
	r := e.report()
	res.Apply(r)
	for _, fd := range r.Findings {
		waived := fd.Waiver != nil && fd.Waiver.Origin == "github"
		if waived != (fd.BackfillID == "BF-1") {
			t.Errorf("finding %s/%s waiver %+v", fd.BackfillID, fd.RuleID, fd.Waiver)
		}
		if waived && (fd.Waiver.Approver != "carol" || !fd.Waiver.Expires.Equal(labelledAt.AddDate(0, 0, 90))) {
			t.Errorf("finding %s/%s waiver %+v, want approver carol and the expiry", fd.BackfillID, fd.RuleID, fd.Waiver)
		}
	}
	if r.Backfills[0].IssueURL == "" {
		t.Error("Apply did not copy BF-1's issue URL")
	}

	t.Run("a new finding reopens it, the accepted ones stay accepted", func(t *testing.T) {
		e.finding("BF-1", "BF007", model.StepNormalized, "monitoring://proj-a/alerts/bf-1")
		res := runSync(t, s, e)
		is := issueFor(t, f, "BF-1")
		if res.Reopened != 1 || is.state != "open" || strings.Contains(strings.Join(is.labels, ","), "accepted") {
			t.Fatalf("result %+v, state %s, labels %v", res, is.state, is.labels)
		}
		if strings.Count(is.body, "(accepted on this issue by `carol`") != 3 || !strings.Contains(is.body, "- [ ] **BF007**") {
			t.Errorf("body:\n%s", is.body)
		}
		if len(res.Waived) != 1 || len(res.Waived[0].Fingerprints) != 3 {
			t.Errorf("Waived = %+v, want the 3 accepted findings", res.Waived)
		}
	})
}

func TestDegradedSourceIsNeverTicked(t *testing.T) {
	for _, tc := range []struct {
		name string
		cov  model.Coverage
		unit string // what the note names: exactly the unit that did not answer
	}{
		{"failed", model.Coverage{Source: "bq", Status: model.CoverageFailed, Error: "403 from BigQuery"}, "`bq`"},
		{"degraded for the scope", model.Coverage{Source: "bq", Status: model.CoverageDegraded, Errors: []model.ScopeError{{Scope: "proj-a", Error: "timeout"}}}, "`bq / proj-a`"},
		{"degraded without a scope", model.Coverage{Source: "bq", Status: model.CoverageDegraded, Errors: []model.ScopeError{{Error: "timeout"}}}, "`bq`"},
		{"missing from the coverage", model.Coverage{Source: "other", Status: model.CoverageOK}, "`bq (did not run)`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			s, _ := newTestSink(t, f)
			e := newEstate().backfill("BF-9", "team-payments").
				finding("BF-9", "BF005", model.StepRetired, "bigquery://proj-a/tmp/bf_9_tbl")
			runSync(t, s, e)

			e.findings = nil       // bq saw nothing this run...
			e.coverage[0] = tc.cov // ...but did not answer
			res := runSync(t, s, e)
			is := issueFor(t, f, "BF-9")
			if res.Closed != 0 || is.state != "open" {
				t.Fatalf("closed on a source that did not answer: %+v", res)
			}
			if strings.Contains(is.body, "- [x]") || !strings.Contains(is.body, "its source could not be read") || !strings.Contains(is.body, "neither ticked nor closed: "+tc.unit+".") {
				t.Errorf("note should name exactly %s; body:\n%s", tc.unit, is.body)
			}

			e.coverage[0] = model.Coverage{Source: "bq", Status: model.CoverageOK}
			if res := runSync(t, s, e); res.Closed != 1 {
				t.Errorf("once bq answered, result %+v, want closed", res)
			}
		})
	}
}

func TestDegradedOtherScopeStillResolves(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := newEstate().backfill("BF-9", "team-payments").
		finding("BF-9", "BF005", model.StepRetired, "bigquery://proj-a/tmp/bf_9_tbl")
	runSync(t, s, e)
	e.findings = nil
	e.coverage[0] = model.Coverage{Source: "bq", Status: model.CoverageDegraded, Errors: []model.ScopeError{{Scope: "proj-b", Error: "timeout"}}}
	if res := runSync(t, s, e); res.Closed != 1 {
		t.Errorf("proj-a answered, result %+v, want closed", res)
	}
}

func TestDuplicateMarkersKeepTheOldest(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := newEstate().backfill("BF-1", "team-payments").finding("BF-1", "BF005", model.StepRetired, uri(1))
	runSync(t, s, e)
	first := issueFor(t, f, "BF-1")
	f.addIssue(fakeIssue{title: "copy", body: first.body, labels: []string{"bfaudit"}})

	res := runSync(t, s, e)
	if res.Created != 0 || len(res.Duplicates) != 1 || !strings.HasSuffix(res.IssueURLs["BF-1"], "/issues/1") {
		t.Errorf("result %+v", res)
	}
}

func TestAssigneeRefusedIsDroppedOnce(t *testing.T) {
	check := func(t *testing.T, f *fakeGitHub, s *Sink, e *estate, res Result) {
		t.Helper()
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "bob") {
			t.Fatalf("result %+v, want a warning naming bob", res)
		}
		is := issueFor(t, f, "BF-1")
		if len(is.assignees) != 0 || strings.Contains(is.body, "(assigned)") || !strings.Contains(is.body, "`bob` from the owner map, not assigned: GitHub refused the login") {
			t.Errorf("assignees %v, body claims what GitHub refused:\n%s", is.assignees, is.body)
		}
		if again := runSync(t, s, e); again.Writes != 0 {
			t.Errorf("refused assignee retried on every run: %+v", again)
		}
	}
	t.Run("on create", func(t *testing.T) {
		f := newFakeGitHub(t)
		f.logins = []string{"alice"} // bob is not a collaborator
		s, _ := newTestSink(t, f)
		e := newEstate().backfill("BF-1", "Data Eng").finding("BF-1", "BF005", model.StepRetired, uri(1))
		res := runSync(t, s, e)
		if res.Created != 1 {
			t.Fatalf("result %+v", res)
		}
		check(t, f, s, e, res)
	})
	t.Run("on edit, when the owner changes", func(t *testing.T) {
		f := newFakeGitHub(t)
		f.logins = []string{"alice"}
		s, _ := newTestSink(t, f)
		e := newEstate().backfill("BF-1", "").finding("BF-1", "BF005", model.StepRetired, uri(1))
		runSync(t, s, e)
		e.backfills[0].Backfill.Owner = "Data Eng"
		res := runSync(t, s, e)
		if res.Edited != 1 {
			t.Fatalf("result %+v", res)
		}
		check(t, f, s, e, res)
	})
}

func TestRunStopsOnCancel(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Sync(ctx, threeBackfills().report())
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err = %v, want ErrIncomplete", err)
	}
}

func issueFor(t *testing.T, f *fakeGitHub, id string) fakeIssue {
	t.Helper()
	issues, _ := f.snapshot()
	for _, is := range issues {
		if m, ok := parseMarker(is.body); ok && model.SameID(m.Backfill, id) {
			return is
		}
	}
	t.Fatalf("no issue for %s", id)
	return fakeIssue{}
}

func commentsOn(f *fakeGitHub, number int) []string {
	_, cs := f.snapshot()
	var out []string
	for _, c := range cs {
		if c.issue == number {
			out = append(out, c.body)
		}
	}
	return out
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestClosedByHandWithOpenItemsIsReopened(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := threeBackfills()
	runSync(t, s, e)
	bf2 := issueFor(t, f, "BF-2")
	f.closeByHand(bf2.number) // no waiver label

	res := runSync(t, s, e)
	if res.Reopened != 1 || res.Commented != 1 || issueFor(t, f, "BF-2").state != "open" {
		t.Fatalf("result %+v", res)
	}
	if c := commentsOn(f, bf2.number); len(c) != 1 || !strings.Contains(c[0], "close it with the label `bfaudit:accepted`") {
		t.Errorf("comments %q", c)
	}
}

func TestClosedIssueOfVanishedBackfillIsLeftAlone(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := newEstate().backfill("BF-1", "team-payments").finding("BF-1", "BF005", model.StepRetired, uri(1))
	runSync(t, s, e)
	runSync(t, s, e.without(uri(1))) // resolved: closed
	e.backfills = nil                // the backfill is retired and gone from the estate
	if res := runSync(t, s, e); res.Writes != 0 || res.IssueURLs["BF-1"] == "" {
		t.Errorf("result %+v, want no writes and the URL kept", res)
	}
}

// Without push access GitHub files the issue but drops its label, and
// bfaudit, which finds its issues by that label, would file another one on
// every run. The run stops at the first such issue and says why.
func TestLabelDroppedOnCreateStopsTheRun(t *testing.T) {
	f := newFakeGitHub(t)
	f.noPush = true
	s, _ := newTestSink(t, f)

	res, err := s.Sync(t.Context(), threeBackfills().report())

	issues, _ := f.snapshot()
	if !errors.Is(err, ErrIncomplete) || len(issues) != 1 {
		t.Fatalf("err %v, %d issues; want the run stopped after the first issue", err, len(issues))
	}
	for _, want := range []string{"#1", `"bfaudit"`, "push access", "label #1 by hand"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if res.Created != 1 || len(res.IssueURLs) != 1 {
		t.Errorf("result %+v, want the issue filed counted and linked", res)
	}
}

// Closing with the waiver label accepts what was open then; an item that
// was already ticked was not accepted, so its return reopens the issue.
func TestWaiverLabelDoesNotHideAResolvedItemComingBack(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := threeBackfills()
	runSync(t, s, e)
	tbl := "bigquery://proj-a/tmp/bf_1_tbl"
	runSync(t, s, e.without(tbl)) // BF005 ticked
	bf1 := issueFor(t, f, "BF-1")
	f.closeByHand(bf1.number, "bfaudit:accepted")

	e.finding("BF-1", "BF005", model.StepRetired, tbl) // the table is back
	res := runSync(t, s, e)

	is := issueFor(t, f, "BF-1")
	if res.Reopened != 1 || is.state != "open" {
		t.Fatalf("result %+v, state %s; want the issue reopened for the table that came back", res, is.state)
	}
	if !strings.Contains(is.body, "- [ ] **BF005**") || strings.Count(is.body, "(accepted on this issue by `alice`") != 2 {
		t.Errorf("body:\n%s", is.body)
	}
	if c := commentsOn(f, bf1.number); len(c) != 1 || !strings.Contains(c[0], "Found again after being resolved") {
		t.Errorf("comments %q", c)
	}
	if len(res.Waived) != 1 || len(res.Waived[0].Fingerprints) != 2 {
		t.Errorf("Waived = %+v, want the 2 findings open when the issue was accepted", res.Waived)
	}
	if again := runSync(t, s, e); again.Writes != 0 || len(again.Waived) != 1 {
		t.Errorf("re-run after reopening: %+v, want no writes and the acceptance kept", again)
	}
}

// Every finding of a backfill rests on its plan, and a finding about the
// backfill as a whole (BF015: past expiry and runs still queued) rests on
// every source: neither is ticked when those did not answer.
func TestResolutionWaitsForTheSourcesItRestsOn(t *testing.T) {
	plans := model.Coverage{Source: "plans", System: "records", Status: model.CoverageOK}
	for _, tc := range []struct {
		name     string
		uri      string
		source   string
		failed   string
		resolves bool
	}{
		{"backfill-level finding, scheduler failed", "", "plans", "airflow", false},
		{"artifact finding, plan source failed", "bigquery://proj-a/tmp/bf_9_tbl", "bq", "plans", false},
		{"artifact finding, unrelated source failed", "bigquery://proj-a/tmp/bf_9_tbl", "bq", "iam", true},
		{"backfill-level finding, all answered", "", "plans", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			s, _ := newTestSink(t, f)
			e := newEstate().backfill("BF-9", "team-payments").
				finding("BF-9", "BF015", model.StepVerified, tc.uri, func(f *model.Finding) { f.Source, f.Scope = tc.source, "" }).
				finding("BF-9", "BF005", model.StepRetired, "bigquery://proj-a/tmp/other")
			e.coverage = append(e.coverage, plans)
			e.backfills[0].Backfill.Source = model.Location{Source: "plans", Path: "plans/bf-9.yaml", Line: 1}
			runSync(t, s, e)

			e = e.without(tc.uri) // BF005 on "other" stays open
			for i := range e.coverage {
				if e.coverage[i].Source == tc.failed {
					e.coverage[i].Status, e.coverage[i].Error = model.CoverageFailed, "unreachable"
				}
			}
			runSync(t, s, e)
			ticked := strings.Contains(issueFor(t, f, "BF-9").body, "- [x]")
			if ticked != tc.resolves {
				t.Errorf("ticked = %v, want %v:\n%s", ticked, tc.resolves, issueFor(t, f, "BF-9").body)
			}
		})
	}
}
