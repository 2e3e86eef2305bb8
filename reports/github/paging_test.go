package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// A server whose issue listing never ends (one serving GitHub's published
// description answers every page with a Link header naming page 2) stops
// the sync after a bounded number of requests, with an error naming the
// listing's URL, and the sink closes, edits and files nothing: without the
// whole list it cannot tell what is resolved.
func TestIssueListingThatNeverEndsStops(t *testing.T) {
	for _, tc := range []struct {
		name string
		// page says, for the nth listing request, how to renumber the
		// issues it answers (0: keep) and which page its Link calls next.
		page func(n int) (offset, next int)
		want string
	}{
		{"Link always names page 2, the same issues", func(int) (int, int) { return 0, 2 }, "page 2 repeats items already listed"},
		{"Link always names page 2, new issues", func(n int) (int, int) { return 100 * n, 2 }, "names a next page that was already read"},
		{"a next page forever", func(n int) (int, int) { return 100 * n, n + 1 }, fmt.Sprintf("still paging after %d pages", maxIssuePages)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			s, _ := newTestSink(t, f)
			e := threeBackfills()
			runSync(t, s, e)
			issues, _ := f.snapshot()

			listing := f.srv.URL + "/api/v3/repos/" + f.owner + "/" + f.repo + "/issues"
			var lists atomic.Int64
			f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
				if r.Method != http.MethodGet || r.URL.Path != strings.TrimPrefix(listing, f.srv.URL) {
					return 0, nil, "", false
				}
				offset, next := tc.page(int(lists.Add(1)))
				var page []string
				for i := range issues {
					m := f.issueJSON(&issues[i])
					if offset != 0 {
						m["number"] = offset + i
					}
					b, _ := json.Marshal(m)
					page = append(page, string(b))
				}
				u := *r.URL
				u.Scheme, u.Host = "http", r.Host
				q := u.Query()
				q.Set("page", strconv.Itoa(next))
				u.RawQuery = q.Encode()
				h := http.Header{}
				h.Set("Link", fmt.Sprintf(`<%s>; rel="next"`, u.String()))
				return http.StatusOK, h, "[" + strings.Join(page, ",") + "]", true
			}
			f.resetCounts()

			// Every item resolved: a complete listing would close every issue.
			res, err := s.Sync(t.Context(), newEstate().backfill("BF-1", "team-payments").report())

			if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "GET "+listing+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Sync = %v; want ErrIncomplete naming GET %s and saying %q", err, listing, tc.want)
			}
			if n := lists.Load(); n > maxIssuePages+1 {
				t.Errorf("%d listing requests, want at most %d", n, maxIssuePages+1)
			}
			if _, writes := f.counts(); writes != 0 || res.Closed != 0 || res.Created != 0 || res.Edited != 0 {
				t.Errorf("%d writes, result %+v; want none after a listing that did not end", writes, res)
			}
		})
	}
}
