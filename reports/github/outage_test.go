package github

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// In a GitHub outage (every write 503) the run stops after a few
// backfills in a row fail, without calling GitHub for the rest, and says
// which backfills were not synced: seconds, not the half hour 250
// backfills of retries and backoff would take.
func TestOutageStopsAfterAFewBackfills(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
		if r.Method == http.MethodGet {
			return 0, nil, "", false
		}
		return http.StatusServiceUnavailable, nil, `{"message":"Service Unavailable"}`, true
	}
	res, err := s.Sync(t.Context(), manyBackfills(250, 1).report())

	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err = %v, want ErrIncomplete", err)
	}
	reads, writes := f.counts()
	t.Logf("outage of 250 backfills: %d reads, %d writes, %s of waits", reads, writes, f.clock.slept)
	// Three backfills, each: a create and three more after checking it
	// did not land.
	if writes > 4*breakerThreshold {
		t.Errorf("%d write calls in an outage, want at most %d", writes, 4*breakerThreshold)
	}
	if f.clock.slept > time.Minute {
		t.Errorf("slept %s in an outage, want well under a minute", f.clock.slept)
	}
	if len(res.NotSynced) != 250 || res.NotSynced[0] != "BF-0001" || res.NotSynced[249] != "BF-0250" {
		t.Errorf("NotSynced has %d backfills, want all 250", len(res.NotSynced))
	}
	for _, want := range []string{"3 backfills in a row failed with server or connection errors", "not synced: BF-0001", "and 240 more (250 in all)", "503"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// A gap in the failures resets the count: one backfill that fails is
// reported and the run goes on.
func TestBreakerNeedsFailuresInARow(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
		body := readBody(r)
		if r.Method == http.MethodPost && (strings.Contains(body, "BF-0002") || strings.Contains(body, "BF-0003") || strings.Contains(body, "BF-0005")) {
			return http.StatusBadGateway, nil, `{"message":"Server Error"}`, true
		}
		return 0, nil, "", false
	}
	res, err := s.Sync(t.Context(), manyBackfills(8, 1).report())
	if !errors.Is(err, ErrIncomplete) || res.Created != 5 || strings.Join(res.NotSynced, ",") != "BF-0002,BF-0003,BF-0005" {
		t.Errorf("err %v, created %d, not synced %v; want 5 created and the 3 failures listed", err, res.Created, res.NotSynced)
	}
}

// write_interval: 0 means no pause between writes, not the default 1s.
func TestWriteIntervalZeroMeansNoPause(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   *time.Duration
		slept time.Duration
	}{
		{"left out: 1s between writes", nil, 4 * time.Second},
		{"zero: none", durationPtr(0), 0},
		{"250ms", durationPtr(250 * time.Millisecond), time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			s, _ := newTestSink(t, f, func(c *Config) { c.WriteInterval = tc.set })
			runSync(t, s, manyBackfills(5, 1))
			if f.clock.slept != tc.slept {
				t.Errorf("slept %s for 5 creates, want %s", f.clock.slept, tc.slept)
			}
		})
	}
}

// rate_limit_wait: 0 means never wait; a budget under a second is printed
// in milliseconds, not as "0s".
func TestRateLimitWaitBudgetWording(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget time.Duration
		want   string
	}{
		{"zero", 0, "github.rate_limit_wait is 0, so bfaudit does not wait"},
		{"sub-second", 400 * time.Millisecond, "for 1m0s, more than the 400ms left of github.rate_limit_wait (400ms)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			s, _ := newTestSink(t, f, func(c *Config) { c.RateLimitWait, c.WriteInterval = durationPtr(tc.budget), durationPtr(0) })
			limitWrites(f, 1, http.StatusTooManyRequests, f.clock.Now().Add(time.Minute), true)
			res, err := s.Sync(t.Context(), manyBackfills(2, 1).report())
			if !errors.Is(err, ErrIncomplete) || res.RateLimitWaited != 0 || f.clock.slept != 0 {
				t.Fatalf("err %v, waited %s; want an immediate stop", err, res.RateLimitWaited)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// Comments and the stale note carry the audit's time (--now), not the
// wall clock or the sink's clock.
func TestCommentsCarryTheAuditTime(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	audit := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	e := newEstate().backfill("BF-1", "team-payments").finding("BF-1", "BF005", model.StepRetired, uri(1))
	mustSyncAt(t, s, e, audit)
	mustSyncAt(t, s, e.without(uri(1)), audit) // closed
	e.finding("BF-1", "BF005", model.StepRetired, uri(1))
	mustSyncAt(t, s, e, audit.Add(24*time.Hour)) // reopened
	c := commentsOn(f, issueFor(t, f, "BF-1").number)
	if len(c) != 2 || !strings.HasPrefix(c[0], "bfaudit (2026-11-30T08:00:00Z): nothing is left open") ||
		!strings.HasPrefix(c[1], "bfaudit (2026-12-01T08:00:00Z): reopening.") {
		t.Errorf("comments %q, want the audit times", c)
	}

	e.backfills[0].Backfill.Source = model.Location{Source: "plans", Path: "plans/bf-1.yaml"}
	e.coverage = append(e.coverage, model.Coverage{Source: "plans", Status: model.CoverageOK})
	mustSyncAt(t, s, e, audit)
	e.coverage[len(e.coverage)-1].Status = model.CoverageFailed
	mustSyncAt(t, s, e, audit.Add(48*time.Hour))
	if body := issueFor(t, f, "BF-1").body; !strings.Contains(body, "(since 2026-12-02)") {
		t.Errorf("stale note lacks the audit day:\n%s", body)
	}
}

// Evidence lines the message already says are not repeated in the issue.
func TestIssueEvidenceDoesNotRepeatTheMessage(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := newEstate().backfill("BF-1", "team-payments").
		finding("BF-1", "BF003", model.StepAccessRevoked, "gcp-iam://proj-a/roles/editor/sa-bf1", func(f *model.Finding) {
			f.Message = "grant roles/editor to sa-bf1 is still in force: the plan's elevated access expired 2026-09-30"
			f.Evidence = []string{"the plan's elevated access expired 2026-09-30", "backfill BF-1 touches financial data"}
		})
	runSync(t, s, e)
	body := issueFor(t, f, "BF-1").body
	if strings.Count(body, "elevated access expired 2026-09-30") != 1 || !strings.Contains(body, "Evidence: backfill BF-1 touches financial data") {
		t.Errorf("body:\n%s", body)
	}
}
