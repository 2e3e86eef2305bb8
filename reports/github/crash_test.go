package github

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// killAfterWrite is a kill of the audit right after its nth write reached
// GitHub, before the answer came back: the request is served (GitHub
// keeps the change), then the run's context is cancelled and the call
// fails, so the run does nothing more.
type killAfterWrite struct {
	base   http.RoundTripper
	n      int
	cancel context.CancelFunc

	mu     sync.Mutex
	writes int
	killed bool
}

func (k *killAfterWrite) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := k.base.RoundTrip(r)
	if err != nil || r.Method == http.MethodGet {
		return resp, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.writes++; k.writes == k.n {
		resp.Body.Close()
		k.killed = true
		k.cancel()
		return nil, context.Canceled
	}
	return resp, nil
}

// crashSteps are three audits: three backfills filed; BF-1 fully resolved
// (closed, with a comment) and BF-2 partly (edited); BF-1's finding back
// (reopened, with a comment).
func crashSteps() []func() *model.Report {
	base := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	estateAt := func(day int, e *estate) func() *model.Report {
		return func() *model.Report { r := e.report(); r.Now = base.AddDate(0, 0, day); return r }
	}
	full := func() *estate {
		return newEstate().backfill("BF-1", "team-payments").backfill("BF-2", "team-payments").backfill("BF-3", "Data Eng").
			finding("BF-1", "BF005", model.StepRetired, uri(1)).
			finding("BF-2", "BF005", model.StepRetired, uri(2)).finding("BF-2", "BF005", model.StepRetired, uri(3)).
			finding("BF-3", "BF005", model.StepRetired, uri(4))
	}
	return []func() *model.Report{
		estateAt(0, full()),
		estateAt(1, full().without(uri(1)).without(uri(3))),
		estateAt(2, full().without(uri(3))),
	}
}

// githubState is what a reader of the repository sees: each issue and its
// comments, in order.
func githubState(f *fakeGitHub) []string {
	issues, comments := f.snapshot()
	var out []string
	for _, is := range issues {
		out = append(out, fmt.Sprintf("#%d %s %s %v\n%s", is.number, is.state, is.title, is.labels, is.body))
	}
	for _, c := range comments {
		out = append(out, fmt.Sprintf("comment on #%d:\n%s", c.issue, c.body))
	}
	return out
}

// The crash sweep: for every write of three audits (creates, edits, state
// changes, comments), the audit is killed right after the write reached
// GitHub; a rerun of that audit, then the rest, leave the repository
// exactly as uninterrupted runs do: no issue twice, no comment lost or
// repeated, no state wrong.
func TestCrashSweepExactlyOnce(t *testing.T) {
	run := func(t *testing.T, kill int) (*fakeGitHub, bool) {
		f := newFakeGitHub(t)
		killedAny := false
		for i, step := range crashSteps() {
			ctx, cancel := context.WithCancel(context.Background())
			k := &killAfterWrite{base: f.srv.Client().Transport, n: kill, cancel: cancel}
			s, _ := newTestSink(t, f)
			s.tr.base = k
			_, err := s.Sync(ctx, step())
			cancel()
			if k.killed {
				killedAny = true
				if err == nil {
					t.Fatalf("step %d: killed after write %d, the run did not notice", i+1, kill)
				}
				rerun, _ := newTestSink(t, f)
				if _, err := rerun.Sync(context.Background(), step()); err != nil {
					t.Fatalf("step %d: rerun after a kill after write %d: %v", i+1, kill, err)
				}
			} else if err != nil {
				t.Fatalf("step %d: %v", i+1, err)
			}
			kill -= k.writes // counts on into the next step
		}
		return f, killedAny
	}
	ref, _ := run(t, 0)
	want := githubState(ref)
	_, writes := ref.counts()
	if writes < 10 {
		t.Fatalf("the uninterrupted runs made %d writes; the sweep needs creates, an edit, a close and a reopen", writes)
	}
	for kill := 1; kill <= writes; kill++ {
		t.Run(fmt.Sprintf("kill after write %d of %d", kill, writes), func(t *testing.T) {
			f, killed := run(t, kill)
			if !killed {
				t.Fatal("the kill did not happen")
			}
			if got := githubState(f); !slices.Equal(got, want) {
				t.Errorf("after the kill and a rerun the repository differs from uninterrupted runs':\ngot:\n%v\nwant:\n%v", got, want)
			}
		})
	}
}

// CommentOnce, the mechanism reminders use: one comment per (issue, key),
// however often asked; another key is another comment.
func TestCommentOnce(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	runSync(t, s, newEstate().backfill("BF-1", "team-payments").finding("BF-1", "BF005", model.StepRetired, uri(1)))
	n := issueFor(t, f, "BF-1").number
	for i, tc := range []struct {
		key  string
		want bool
	}{{"fp1:due-in-7d", true}, {"fp1:due-in-7d", false}, {"fp1:overdue", true}} {
		posted, err := s.CommentOnce(context.Background(), n, "reminder", tc.key, "reminder "+tc.key, time.Time{})
		if err != nil || posted != tc.want {
			t.Errorf("call %d (%s): posted %v, %v; want %v", i+1, tc.key, posted, err, tc.want)
		}
	}
	if c := commentsOn(f, n); len(c) != 2 {
		t.Errorf("comments %q, want one per key", c)
	}
}
