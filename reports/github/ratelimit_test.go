package github

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

func manyBackfills(n, findingsEach int) *estate {
	e := newEstate()
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("BF-%04d", i)
		e.backfill(id, "team-payments")
		for j := 0; j < findingsEach; j++ {
			e.finding(id, "BF005", model.StepRetired, fmt.Sprintf("bigquery://proj-a/tmp/bf_%04d_t%d", i, j))
		}
	}
	return e
}

const (
	primaryBody   = `{"message":"API rate limit exceeded for user ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit"}`
	secondaryBody = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`
)

// limitWrites answers writes from the nth on with a rate limit until the
// clock reaches until.
func limitWrites(f *fakeGitHub, from int, status int, until time.Time, secondary bool) {
	writes := 0
	f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
		if r.Method == http.MethodGet {
			return 0, nil, "", false
		}
		writes++
		now := f.clock.Now()
		if writes < from || !now.Before(until) {
			return 0, nil, "", false
		}
		h := http.Header{}
		h.Set("X-RateLimit-Limit", "5000")
		h.Set("X-RateLimit-Resource", "core")
		if secondary {
			h.Set("X-RateLimit-Remaining", "4000")
			h.Set("Retry-After", strconv.Itoa(int(until.Sub(now).Seconds())))
			return status, h, secondaryBody, true
		}
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Used", "5000")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(until.Unix(), 10))
		return status, h, primaryBody, true
	}
}

func TestRateLimits(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		secondary bool
		wait      time.Duration
		complete  bool
	}{
		{"primary 403 within the bound is waited out", http.StatusForbidden, false, 2 * time.Minute, true},
		{"primary 429 within the bound is waited out", http.StatusTooManyRequests, false, 2 * time.Minute, true},
		{"secondary 403 Retry-After within the bound is waited out", http.StatusForbidden, true, 90 * time.Second, true},
		{"secondary 429 Retry-After within the bound is waited out", http.StatusTooManyRequests, true, 90 * time.Second, true},
		{"primary past the bound stops the run", http.StatusForbidden, false, time.Hour, false},
		{"secondary past the bound stops the run", http.StatusTooManyRequests, true, time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			s, _ := newTestSink(t, f)
			s.cfg.WriteInterval = durationPtr(0) // keep the clock for the rate limit alone
			e := manyBackfills(20, 1)
			limitWrites(f, 6, tc.status, f.clock.Now().Add(tc.wait), tc.secondary)

			res, err := s.Sync(t.Context(), e.report())
			issues, _ := f.snapshot()
			if tc.complete {
				if err != nil || res.Created != 20 || len(issues) != 20 {
					t.Fatalf("err %v, created %d, %d issues; want the run to finish", err, res.Created, len(issues))
				}
				if res.RateLimitWaited < tc.wait || res.RateLimitWaited > tc.wait+time.Second {
					t.Errorf("waited %s, want about %s", res.RateLimitWaited, tc.wait)
				}
				return
			}
			if !errors.Is(err, ErrIncomplete) {
				t.Fatalf("err = %v, want ErrIncomplete", err)
			}
			if res.Created != 5 || len(issues) != 5 || res.RateLimitWaited != 0 {
				t.Fatalf("created %d, %d issues, waited %s; want the 5 made before the limit kept and no wait", res.Created, len(issues), res.RateLimitWaited)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Fatalf("token in error: %v", err)
			}

			// The limit passes; the next run converges without duplicates.
			f.clock.Advance(tc.wait)
			res, err = s.Sync(t.Context(), e.report())
			issues, _ = f.snapshot()
			if err != nil || res.Created != 15 || res.Unchanged != 5 || len(issues) != 20 {
				t.Fatalf("re-run: err %v, %+v, %d issues; want 15 created, 5 unchanged, 20 in all", err, res, len(issues))
			}
			seen := map[string]bool{}
			for _, is := range issues {
				m, _ := parseMarker(is.body)
				if seen[m.Backfill] {
					t.Errorf("duplicate issue for %s", m.Backfill)
				}
				seen[m.Backfill] = true
			}
		})
	}
}

func TestServerErrorsAreRetried(t *testing.T) {
	t.Run("list and edit retried with backoff", func(t *testing.T) {
		f := newFakeGitHub(t)
		s, _ := newTestSink(t, f)
		e := manyBackfills(2, 2)
		runSync(t, s, e)
		failed := map[string]int{}
		f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
			if failed[r.Method] < 2 {
				failed[r.Method]++
				return http.StatusBadGateway, nil, `{"message":"Server Error"}`, true
			}
			return 0, nil, "", false
		}
		res := runSync(t, s, e.without("bigquery://proj-a/tmp/bf_0001_t0"))
		if res.Edited != 1 || res.Reads != 3 || res.Writes != 3 {
			t.Errorf("result %+v, want 1 edit after 2 failed reads and 2 failed writes", res)
		}
	})
	t.Run("a create that landed despite a 502 is not made twice", func(t *testing.T) {
		f := newFakeGitHub(t)
		s, _ := newTestSink(t, f)
		f.createFails = func(n int) (int, bool) { return http.StatusBadGateway, n == 2 }
		res := runSync(t, s, manyBackfills(3, 1))
		issues, _ := f.snapshot()
		if len(issues) != 3 || res.Created != 3 || len(res.IssueURLs) != 3 {
			t.Errorf("%d issues, result %+v; want 3, no duplicate", len(issues), res)
		}
	})
	t.Run("a create that keeps failing is reported, the rest go on", func(t *testing.T) {
		f := newFakeGitHub(t)
		s, _ := newTestSink(t, f)
		f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
			if r.Method == http.MethodPost && strings.Contains(readBody(r), "BF-0002") {
				return http.StatusInternalServerError, nil, `{"message":"Server Error"}`, true
			}
			return 0, nil, "", false
		}
		res, err := s.Sync(t.Context(), manyBackfills(3, 1).report())
		if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "BF-0002") || res.Created != 2 {
			t.Errorf("err %v, result %+v", err, res)
		}
	})
}

func TestPermissionErrorIsNotRetried(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	f.intercept = func(int, *http.Request) (int, http.Header, string, bool) {
		return http.StatusForbidden, nil, `{"message":"Resource not accessible by personal access token","documentation_url":"https://docs.github.com/rest/issues/issues#list-repository-issues"}`, true
	}
	res, err := s.Sync(t.Context(), manyBackfills(1, 1).report())
	if !errors.Is(err, ErrIncomplete) || res.Reads != 1 || res.Created != 0 {
		t.Errorf("err %v, result %+v; want one read, then stop", err, res)
	}
}

func readBody(r *http.Request) string {
	if r.Body == nil {
		return ""
	}
	return mustRead(r)
}

// GitHub answers the request that spends the primary quota with a success
// and X-RateLimit-Remaining: 0. go-github then refuses every later call on
// its own until the reset (by the wall clock), so the sink must wait for
// the reset itself instead of failing the rest of the run.
func TestQuotaSpentOnASuccessIsWaitedOut(t *testing.T) {
	f := newFakeGitHub(t)
	// Start the fake clock at the wall clock, so that the resets it hands out
	// lie in go-github's future, as they do against the real GitHub.
	f.clock.now = time.Now().UTC().Truncate(time.Second)
	f.quota = &fakeQuota{per: 5, window: 2 * time.Minute}
	s, _ := newTestSink(t, f)
	s.cfg.WriteInterval = durationPtr(0)

	res, err := s.Sync(t.Context(), manyBackfills(12, 1).report())

	issues, _ := f.snapshot()
	if err != nil || res.Created != 12 || len(issues) != 12 {
		t.Fatalf("err %v, created %d, %d issues; want 12 created after waiting for the quota", err, res.Created, len(issues))
	}
	if f.quota.refused != 0 {
		t.Errorf("%d requests sent into a spent quota; want the sink to wait for the reset first", f.quota.refused)
	}
	if min := 4 * time.Minute; res.RateLimitWaited < min || res.RateLimitWaited > min+5*time.Second {
		t.Errorf("waited %s, want two resets of about 2m each", res.RateLimitWaited)
	}
}

// A token that may read but not write issues fails every write the same
// way: the run stops at the first refusal instead of trying every backfill.
func TestWriteRefusedStopsTheRun(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
		if r.Method == http.MethodGet {
			return 0, nil, "", false
		}
		return http.StatusForbidden, nil, `{"message":"Resource not accessible by personal access token","documentation_url":"https://docs.github.com/rest/issues/issues#create-an-issue","status":"403"}`, true
	}
	res, err := s.Sync(t.Context(), manyBackfills(5, 1).report())
	if !errors.Is(err, ErrIncomplete) || res.Writes != 1 || res.Created != 0 {
		t.Fatalf("err %v, result %+v; want one refused write, then stop", err, res)
	}
	if !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "acme/data-platform") {
		t.Errorf("error does not say what was refused where: %v", err)
	}
}
