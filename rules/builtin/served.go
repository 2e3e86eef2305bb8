package builtin

import (
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// An artifact can serve several backfills at once: an alert watching
// backfill_id=~"bf-1|bf-2", a silence or a flag naming two. It is tied to
// the first id its system wrote and lists the rest (correlate's
// BackfillsOf), and it is machinery of all of them: it lingers only once
// every backfill it names is over, the grace running from the last to
// complete, whatever order the ids were written in. An id no plan or
// scheduler describes cannot be shown over, so an artifact naming one is
// never called lingering: a false "delete it" would take away machinery a
// running backfill may need.

// lingers reports whether every backfill the artifact names is over and
// the grace has run out since the last of them completed, with the
// evidence lines saying so.
func lingers(c *rules.Context, a *model.Artifact, grace time.Duration) (bool, []string) {
	s := c.Index.BackfillsOf(a)
	if len(s.Unknown) > 0 {
		return false, nil
	}
	over, why := c.GraceOverAll(s.Backfills, grace)
	if !over {
		return false, nil
	}
	return true, append(servesNote(s.Backfills), why)
}

// allCompleted reports whether every backfill the artifact names is known
// and has finished its replay.
func allCompleted(c *rules.Context, a *model.Artifact) bool {
	s := c.Index.BackfillsOf(a)
	if len(s.Unknown) > 0 || len(s.Backfills) == 0 {
		return false
	}
	for _, b := range s.Backfills {
		if !b.Status.Completed() {
			return false
		}
	}
	return true
}

// servesNote is the evidence line of an artifact serving several
// backfills, each with its status; none for one.
func servesNote(bs []*model.Backfill) []string {
	if len(bs) < 2 {
		return nil
	}
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("%s (%s)", b.ID, orStatus(b.Status))
	}
	return []string{"it serves backfills " + joinAnd(parts)}
}

func orStatus(s model.Status) string {
	if s == "" {
		return "status unknown"
	}
	return string(s)
}

// backfillNames names every backfill an artifact serves, for a message:
// "backfill BF-1", "backfills BF-1 and BF-2".
func backfillNames(bs []*model.Backfill) string {
	ids := make([]string, len(bs))
	for i, b := range bs {
		ids[i] = b.ID
	}
	if len(ids) == 1 {
		return "backfill " + ids[0]
	}
	return "backfills " + joinAnd(ids)
}
