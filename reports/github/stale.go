package github

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	gh "github.com/google/go-github/v60/github"
)

// describedBy is the unit that describes the backfill: its plan as this
// run read it when that unit answered (model.Answers.Described), else the
// one the issue last recorded. A plan that did not read this run leaves the
// backfill described by the history store's last known copy, by the
// scheduler's evidence (what ran, not what was planned: with no history
// store that is all that is left) or by nothing, so then the issue's memory
// wins, and the issue is kept as it was.
func describedBy(prev marker, br *model.BackfillReport, ans model.Answers) model.Location {
	if br != nil && br.Known && br.Backfill.Source.Source != "" && ans.Described(*br.Backfill) {
		return model.Location{Source: br.Backfill.Source.Source, Path: br.Backfill.Source.Path}
	}
	if prev.Described.Source != "" {
		return prev.Described
	}
	if br != nil && br.Known {
		return model.Location{Source: br.Backfill.Source.Source, Path: br.Backfill.Source.Path}
	}
	return model.Location{}
}

// Markers around the note a stale issue carries.
const (
	staleStart = "<!-- bfaudit:stale -->"
	staleEnd   = "<!-- /bfaudit:stale -->"
)

// keepStale leaves an issue as it was when the unit that describes its
// backfill did not answer: the title, description, severities, checklist
// and open or closed state all rest on that plan, and rewriting them from
// what is left would regress them (the second sink to disagree with the
// history store). Only a note at the top says why nothing moved.
func (s *Sink) keepStale(ctx context.Context, w *work, units []string, now time.Time, res *Result) error {
	is := w.issue
	res.IssueURLs[w.id] = is.url
	body := withStaleNote(is.body, units, day(now))
	if body == is.body {
		res.Unchanged++
		return nil
	}
	req := &gh.IssueRequest{Body: &body}
	if err := s.edit(ctx, is, req, fmt.Sprintf("note on #%d for %s: its plan could not be read", is.number, w.id), nil, res); err != nil {
		return fmt.Errorf("github: update issue #%d for %s: %w", is.number, w.id, err)
	}
	res.Edited++
	return nil
}

// withStaleNote puts (or replaces) the note naming the units that did not
// answer at the top of body; the rest of the body is kept byte for byte.
// The note's date is that of the first run that could not read them, so
// re-runs of the same outage do not edit the issue again.
func withStaleNote(body string, units []string, day string) string {
	rest := body
	old := ""
	if i := strings.Index(body, staleStart); i >= 0 {
		if j := strings.Index(body[i:], staleEnd); j >= 0 {
			old = body[i : i+j+len(staleEnd)]
			rest = body[:i] + strings.TrimLeft(body[i+j+len(staleEnd):], "\n")
		}
	}
	names := make([]string, len(units))
	for i, u := range units {
		names[i] = "`" + strings.ReplaceAll(u, "`", "'") + "`"
	}
	lead := "> [!WARNING]\n> The plan or record describing this backfill could not be read in the latest run (" +
		strings.Join(names, ", ") + "), so this issue keeps its last known description: nothing here was ticked, closed or rewritten"
	if old != "" && strings.Contains(old, lead) {
		return body // same outage, same note: no edit
	}
	note := staleStart + "\n" + lead + " (since " + day + ").\n" + staleEnd + "\n\n"
	return note + rest
}
