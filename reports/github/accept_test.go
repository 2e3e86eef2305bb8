package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// syncAt runs the sink on e as an audit made at now (--now).
func syncAt(t *testing.T, s *Sink, e *estate, now time.Time) (Result, error) {
	t.Helper()
	r := e.report()
	r.Now = now
	return s.Sync(context.Background(), r)
}

func mustSyncAt(t *testing.T, s *Sink, e *estate, now time.Time) Result {
	t.Helper()
	res, err := syncAt(t, s, e, now)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return res
}

// acceptedEstate is one backfill with a high and a medium finding, filed;
// the test then closes its issue with the waiver label.
func acceptedEstate(t *testing.T, mutate ...func(*Config)) (*fakeGitHub, *Sink, *estate, fakeIssue) {
	t.Helper()
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f, mutate...)
	e := newEstate().backfill("BF-1", "team-payments").
		finding("BF-1", "BF005", model.StepRetired, uri(1)).
		finding("BF-1", "BF003", model.StepAccessRevoked, "gcp-iam://proj-a/roles/editor/sa-bf1", func(f *model.Finding) {
			f.Severity, f.Source = model.SeverityHigh, "iam"
		})
	runSync(t, s, e)
	return f, s, e, issueFor(t, f, "BF-1")
}

func waivedFPs(res Result) int {
	n := 0
	for _, w := range res.Waived {
		n += len(w.Fingerprints)
	}
	return n
}

// An acceptance lasts github.accept_days from when the label was applied;
// from then on the findings count again and the issue reopens, saying so.
func TestAcceptanceExpires(t *testing.T) {
	f, s, e, is := acceptedEstate(t, func(c *Config) { c.AcceptDays = intPtr(30) })
	labelled := f.clock.Now()
	f.closeByHandAs("carol", is.number, "bfaudit:accepted")

	res := mustSyncAt(t, s, e, labelled.Add(time.Hour))
	if waivedFPs(res) != 2 || !res.Waived[0].Expires.Equal(labelled.AddDate(0, 0, 30)) {
		t.Fatalf("Waived = %+v, want both findings until %s", res.Waived, labelled.AddDate(0, 0, 30))
	}
	if res := mustSyncAt(t, s, e, labelled.AddDate(0, 0, 30).Add(-time.Second)); waivedFPs(res) != 2 || res.Writes != 0 {
		t.Errorf("a second before expiry: %+v, want still waived and no write", res)
	}

	expiry := labelled.AddDate(0, 0, 30)
	res = mustSyncAt(t, s, e, expiry)
	got := issueFor(t, f, "BF-1")
	if len(res.Waived) != 0 || res.Reopened != 1 || got.state != "open" || strings.Contains(strings.Join(got.labels, ","), "accepted") {
		t.Fatalf("at expiry: %+v, state %s, labels %v; want the issue reopened without the label, nothing waived", res, got.state, got.labels)
	}
	c := commentsOn(f, is.number)
	want := fmt.Sprintf("The acceptance by `carol` on %s ran out on %s (github.accept_days: 30); these count again:", day(labelled), day(expiry))
	if len(c) != 1 || !strings.Contains(c[0], want) || !strings.Contains(c[0], "**BF003** (high)") {
		t.Errorf("comments %q, want one saying %q", c, want)
	}
	if !strings.HasPrefix(c[0], "bfaudit ("+expiry.UTC().Format(time.RFC3339)+")") {
		t.Errorf("comment %q does not carry the audit time %s", c[0], expiry)
	}
	if strings.Contains(got.body, "accepted on this issue") {
		t.Errorf("body still shows the lapsed acceptance:\n%s", got.body)
	}

	// Accepting again is a new label event, with its own 30 days.
	f.clock.Advance(expiry.Sub(f.clock.Now()) + time.Hour)
	f.closeByHandAs("carol", is.number, "bfaudit:accepted")
	res = mustSyncAt(t, s, e, f.clock.Now())
	if waivedFPs(res) != 2 || res.Reopened != 0 || issueFor(t, f, "BF-1").state != "closed" {
		t.Errorf("accepted again: %+v", res)
	}
}

// A label applied longer ago than github.accept_days accepts nothing.
func TestAcceptanceLabelAppliedTooLongAgo(t *testing.T) {
	f, s, e, is := acceptedEstate(t, func(c *Config) { c.AcceptDays = intPtr(7) })
	f.closeByHandAs("carol", is.number, "bfaudit:accepted")
	res := mustSyncAt(t, s, e, f.clock.Now().AddDate(0, 0, 8))
	if len(res.Waived) != 0 || res.Reopened != 1 {
		t.Fatalf("%+v, want nothing waived and the issue reopened", res)
	}
	if c := commentsOn(f, is.number); len(c) != 1 || !strings.Contains(c[0], "an acceptance lasts 7 days (github.accept_days), so it ran out on") {
		t.Errorf("comments %q", c)
	}
}

// github.accept_from names who may accept. A label applied by anyone else
// is ignored: the issue reopens with a comment saying why, naming the
// person without pinging them, and nothing is waived.
func TestAcceptFrom(t *testing.T) {
	team := func(c *Config) { c.AcceptFrom = []string{"alice", "acme/platform-leads"} }
	for _, tc := range []struct {
		name    string
		actor   string
		members []string
		allowed bool
	}{
		{"a listed login", "Alice", nil, true},
		{"an active member of a listed team", "dave", []string{"dave"}, true},
		{"anyone else", "mallory", []string{"dave"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, s, e, is := acceptedEstate(t, team)
			f.teams = map[string][]string{"acme/platform-leads": tc.members}
			f.closeByHandAs(tc.actor, is.number, "bfaudit:accepted")

			res := runSync(t, s, e)
			got := issueFor(t, f, "BF-1")
			if !tc.allowed {
				if len(res.Waived) != 0 || res.Reopened != 1 || got.state != "open" || strings.Contains(strings.Join(got.labels, ","), "accepted") {
					t.Fatalf("%+v, state %s, labels %v; want the acceptance ignored and the issue reopened", res, got.state, got.labels)
				}
				c := commentsOn(f, is.number)
				if len(c) != 1 || !strings.Contains(c[0], "applied by `mallory`") || !strings.Contains(c[0], "only `alice` or `acme/platform-leads` may accept") {
					t.Errorf("comments %q", c)
				}
				if strings.Contains(strings.Join(c, ""), "@mallory") {
					t.Errorf("comment pings the person: %q", c)
				}
				return
			}
			if waivedFPs(res) != 2 || res.Waived[0].Approver != tc.actor || got.state != "closed" {
				t.Errorf("%+v, state %s; want both findings accepted by %s", res, got.state, tc.actor)
			}
		})
	}
}

// A team membership GitHub did not answer is never taken as a yes, and no
// acceptance is undone on it: nothing is waived, the issue is left as it
// is, and the run reports itself incomplete, saying what could not be
// checked. The next run, with GitHub answering, records the acceptance.
func TestAcceptFromLookupFailureIsNotAllowed(t *testing.T) {
	f, s, e, is := acceptedEstate(t, func(c *Config) { c.AcceptFrom = []string{"acme/platform-leads"} })
	f.teams = map[string][]string{"acme/platform-leads": {"dave"}}
	f.closeByHandAs("dave", is.number, "bfaudit:accepted")
	f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
		if strings.Contains(r.URL.Path, "/memberships/") {
			return http.StatusForbidden, nil, `{"message":"Resource not accessible by personal access token"}`, true
		}
		return 0, nil, "", false
	}
	f.resetCounts()
	res, err := s.Sync(t.Context(), e.report())
	if !errors.Is(err, ErrIncomplete) || len(res.Waived) != 0 || res.Writes != 0 {
		t.Fatalf("err %v, %+v; want incomplete, nothing waived, no write", err, res)
	}
	for _, want := range []string{"#1", "dave", "acme/platform-leads", "403", "not waived"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if got := issueFor(t, f, "BF-1"); got.state != "closed" || len(commentsOn(f, is.number)) != 0 {
		t.Errorf("issue touched on a failed lookup: state %s", got.state)
	}
	if len(res.NotSynced) != 1 || res.NotSynced[0] != "BF-1" {
		t.Errorf("NotSynced = %v", res.NotSynced)
	}

	f.intercept = nil
	if res := runSync(t, s, e); waivedFPs(res) != 2 {
		t.Errorf("once GitHub answers: %+v", res)
	}
}

// The label accepts findings up to github.accept_max_severity (default
// high): a critical one stays open, and the issue reopens to say so.
func TestAcceptMaxSeverity(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := newEstate().backfill("BF-1", "team-payments").
		finding("BF-1", "BF005", model.StepRetired, uri(1)).
		finding("BF-1", "BF003", model.StepAccessRevoked, "gcp-iam://proj-a/roles/owner/sa-bf1", func(f *model.Finding) {
			f.Severity, f.Source = model.SeverityCritical, "iam"
		})
	runSync(t, s, e)
	is := issueFor(t, f, "BF-1")
	f.closeByHand(is.number, "bfaudit:accepted")

	res := runSync(t, s, e)
	got := issueFor(t, f, "BF-1")
	if waivedFPs(res) != 1 || res.Reopened != 1 || got.state != "open" {
		t.Fatalf("%+v, state %s; want the medium finding accepted, the critical one open", res, got.state)
	}
	if !strings.Contains(got.body, "- [ ] **BF003** (critical)") || !strings.Contains(got.body, "**BF005** (medium) title of BF005: `bigquery://proj-a/tmp/bf_0001_tbl` (accepted on this issue by `alice`") {
		t.Errorf("body:\n%s", got.body)
	}
	c := commentsOn(f, is.number)
	if len(c) != 1 || !strings.Contains(c[0], "up to severity high (github.accept_max_severity)") || !strings.Contains(c[0], "**BF003** (critical)") {
		t.Errorf("comments %q", c)
	}
	if again := runSync(t, s, e); again.Writes != 0 || waivedFPs(again) != 1 {
		t.Errorf("re-run: %+v, want no write and the medium finding still accepted", again)
	}
}

// Who applied the label is read from the newest events: an issue with a
// long history finds it on its last page.
func TestAcceptanceFoundOnTheLastPageOfEvents(t *testing.T) {
	f, s, e, is := acceptedEstate(t, func(c *Config) { c.AcceptFrom = []string{"carol"} })
	f.mu.Lock()
	for i := 0; i < 250; i++ {
		f.event(f.issues[is.number-1], "bob", "labeled", "bfaudit:accepted") // bob's old labelling
		f.event(f.issues[is.number-1], "bob", "unlabeled", "bfaudit:accepted")
	}
	f.mu.Unlock()
	f.clock.Advance(time.Minute)
	f.closeByHandAs("carol", is.number, "bfaudit:accepted")
	res := runSync(t, s, e)
	if waivedFPs(res) != 2 || res.Waived[0].Approver != "carol" {
		t.Fatalf("%+v, want carol's acceptance from the last page", res)
	}
	if res.Reads != 3 { // the listing, the first page of events, the last
		t.Errorf("%d reads, want 3", res.Reads)
	}
}

// Events that cannot be read leave the acceptance unchecked: not waived,
// not undone, reported.
func TestAcceptanceEventsUnreadable(t *testing.T) {
	f, s, e, is := acceptedEstate(t)
	f.closeByHand(is.number, "bfaudit:accepted")
	f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
		if strings.HasSuffix(r.URL.Path, "/events") {
			return http.StatusNotFound, nil, `{"message":"Not Found"}`, true
		}
		return 0, nil, "", false
	}
	res, err := s.Sync(t.Context(), e.report())
	if !errors.Is(err, ErrIncomplete) || len(res.Waived) != 0 || res.Writes != 0 || !strings.Contains(err.Error(), "events") {
		t.Fatalf("err %v, %+v", err, res)
	}
}

// An acceptance an older bfaudit recorded without who and when is open
// again until someone accepts it anew; with the label still on the closed
// issue, its events say who.
func TestLegacyAcceptanceIsJudgedAgain(t *testing.T) {
	f, s, e, is := acceptedEstate(t, func(c *Config) { c.AcceptFrom = []string{"carol"} })
	f.mu.Lock()
	fi := f.issues[is.number-1]
	fi.body = strings.ReplaceAll(fi.body, `"state":"open"`, `"state":"accepted"`) // what an older version wrote
	f.mu.Unlock()
	f.closeByHandAs("mallory", is.number, "bfaudit:accepted")
	res := runSync(t, s, e)
	if len(res.Waived) != 0 || res.Reopened != 1 {
		t.Errorf("%+v, want the unrecorded acceptance judged (mallory may not accept) and the issue reopened", res)
	}
}

// The events are read a bounded number of pages: a label buried deeper
// is reported as unchecked, not searched for without end.
func TestAcceptanceEventPagesAreBounded(t *testing.T) {
	f, s, e, is := acceptedEstate(t)
	f.closeByHandAs("carol", is.number, "bfaudit:accepted")
	f.mu.Lock()
	for i := 0; i < 1200; i++ {
		f.event(f.issues[is.number-1], "bob", "subscribed", "")
	}
	f.mu.Unlock()
	f.resetCounts()
	res, err := s.Sync(t.Context(), e.report())
	if !errors.Is(err, ErrIncomplete) || len(res.Waived) != 0 || !strings.Contains(err.Error(), "pages of events") {
		t.Fatalf("err %v, %+v", err, res)
	}
	if reads, _ := f.counts(); reads != 1+maxEventPages {
		t.Errorf("%d reads, want the listing and %d pages of events", reads, maxEventPages)
	}
}
