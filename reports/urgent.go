package reports

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
)

// What a person reads first is the most urgent open item (issue 35, "the
// urgent thing first"): the most severe, then the overdue, then the one
// of the earliest lifecycle step.

// IsOverdue reports whether an open (unwaived) finding has reached its due
// date at now.
func IsOverdue(f model.Finding, now time.Time) bool {
	return !f.Waived() && (f.Overdue || (!f.DueAt.IsZero() && !now.Before(f.DueAt)))
}

// OverdueCount counts the report's open findings past their due date.
func OverdueCount(r *model.Report) int {
	n := 0
	for i := range r.Findings {
		if IsOverdue(r.Findings[i], r.Now) {
			n++
		}
	}
	return n
}

// moreUrgent orders open findings: severity, then overdue before not,
// then the earlier lifecycle step, then the earlier due date, then the
// fingerprint so the order never depends on the input's.
func moreUrgent(a, b *model.Finding, now time.Time) bool {
	if a.Severity != b.Severity {
		return a.Severity > b.Severity
	}
	if oa, ob := IsOverdue(*a, now), IsOverdue(*b, now); oa != ob {
		return oa
	}
	if a.Step != b.Step {
		return a.Step < b.Step
	}
	if !a.DueAt.Equal(b.DueAt) {
		switch {
		case a.DueAt.IsZero():
			return false
		case b.DueAt.IsZero():
			return true
		}
		return a.DueAt.Before(b.DueAt)
	}
	return a.Fingerprint < b.Fingerprint
}

// Next is what a backfill row shows as its next item: its most urgent open
// finding, or, when none is open, what else keeps its lifecycle's next
// step open (missing evidence, or sources that did not answer).
type Next struct {
	// Finding is the most urgent open finding; nil when none is open.
	Finding *model.Finding
	// Overdue says Finding is past its due date; Left says by how much.
	Overdue bool
	Left    string
	// Step is the lifecycle step Text holds open, when Finding is nil.
	Step model.Step
	Text string
	// Unknown names the silent sources that alone keep Step open.
	Unknown []string
	// More counts the further open items: the backfill's other open
	// findings, or the other blockers when none is open.
	More int
	// Done says every step is complete and nothing is open.
	Done bool
}

// String is the next item on one line: "critical BF003, overdue by 1d:
// grant ... (+21 more)"; "retired unknown: kafka did not answer";
// "done".
func (n Next) String() string {
	s := n.Item()
	if m := n.MoreText(); m != "" {
		s += " " + m
	}
	return s
}

// Item is the next item without the count of the others.
func (n Next) Item() string {
	switch {
	case n.Finding != nil:
		s := n.Finding.Severity.String() + " " + n.Finding.RuleID
		if n.Overdue {
			s += ", " + n.Left
		}
		return s + ": " + oneLine(n.Finding.Message)
	case n.Done:
		return "done"
	case len(n.Unknown) > 0:
		return n.Step.String() + " unknown: " + strings.Join(n.Unknown, ", ") + " did not answer"
	case n.Text != "":
		if n.Step != model.StepPlan {
			return n.Step.String() + ": " + oneLine(n.Text)
		}
		return oneLine(n.Text)
	}
	return "-"
}

// MoreText counts the other open items, "(+3 more)"; "" when there are
// none. A table that cuts the item keeps it.
func (n Next) MoreText() string {
	if n.More <= 0 || n.Done || (n.Finding == nil && len(n.Unknown) == 0 && n.Text == "") {
		return ""
	}
	return fmt.Sprintf("(+%d more)", n.More)
}

// urgency indexes the report's open findings by backfill, built in one
// pass: the most urgent of each and how many are open.
type urgency struct {
	now time.Time
	by  map[model.BackfillID]*urgent
}

type urgent struct {
	open int
	// most are the most urgent open findings, most urgent first, at
	// most 1+maxRest: what a row shows and what its "and N more" opens
	// to. Memory stays bounded by backfills, not findings.
	most []*model.Finding
}

// add counts an open finding and keeps it if it is among the most urgent.
func (e *urgent) add(f *model.Finding, now time.Time) {
	e.open++
	i := sort.Search(len(e.most), func(i int) bool { return moreUrgent(f, e.most[i], now) })
	if i > maxRest {
		return
	}
	if len(e.most) <= maxRest {
		e.most = append(e.most, nil)
	}
	copy(e.most[i+1:], e.most[i:])
	e.most[i] = f
}

func newUrgency(r *model.Report) *urgency {
	u := &urgency{now: r.Now, by: map[model.BackfillID]*urgent{}}
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Waived() || f.BackfillID == "" {
			continue
		}
		k := model.ParseID(f.BackfillID)
		e := u.by[k]
		if e == nil {
			e = &urgent{}
			u.by[k] = e
		}
		e.add(f, r.Now)
	}
	return u
}

// next is a backfill's next item.
func (u *urgency) next(b model.BackfillReport) Next {
	if e := u.by[model.ParseID(b.Backfill.ID)]; e != nil {
		top := e.most[0]
		n := Next{Finding: top, More: e.open - 1, Overdue: IsOverdue(*top, u.now)}
		if n.Overdue {
			n.Left = due.Left(*top, u.now)
			if n.Left == "" {
				n.Left = "overdue"
			}
		}
		return n
	}
	lc := b.Lifecycle
	switch {
	case lc.Done:
		return Next{Done: true}
	case len(lc.Unknown) > 0:
		return Next{Step: lc.Next, Unknown: lc.Unknown}
	case len(lc.Blockers) == 0:
		return Next{}
	}
	n := Next{Text: lc.Blockers[0], More: len(lc.Blockers) - 1}
	if b.Known {
		n.Step = lc.Next
	}
	return n
}

// maxRest bounds the further findings a backfill row opens to: the rest
// are in the Findings table.
const maxRest = 10

// Rest is what a backfill row's "and N more" opens to: its open findings
// after the most urgent, most urgent first, at most maxRest; Unlisted
// counts those past it.
type Rest struct {
	Findings []*model.Finding
	Unlisted int
}

// rest is a backfill's open findings after its most urgent one.
func (u *urgency) rest(b model.BackfillReport) Rest {
	e := u.by[model.ParseID(b.Backfill.ID)]
	if e == nil {
		return Rest{}
	}
	return Rest{Findings: e.most[1:], Unlisted: e.open - len(e.most)}
}

// TeamOverdue is one team's overdue open findings, for the weekly review.
type TeamOverdue struct {
	Team       string
	BySeverity map[string]int
	Total      int
}

// noTeam names the owners in no team, as the history store does.
const noTeam = "(no team)"

// overdueByTeam groups the open, overdue findings by team: the teams with
// the most critical ones first, then the most overdue, then by name. The
// second result lists the critical overdue findings, longest overdue
// first, then in the order of moreUrgent.
func overdueByTeam(r *model.Report) ([]TeamOverdue, []model.Finding) {
	by := map[string]*TeamOverdue{}
	var crit []model.Finding
	for i := range r.Findings {
		f := &r.Findings[i]
		if !IsOverdue(*f, r.Now) {
			continue
		}
		team := f.Team
		if team == "" {
			team = noTeam
		}
		t := by[team]
		if t == nil {
			t = &TeamOverdue{Team: team, BySeverity: map[string]int{}}
			by[team] = t
		}
		t.BySeverity[f.Severity.String()]++
		t.Total++
		if f.Severity == model.SeverityCritical {
			crit = append(crit, *f)
		}
	}
	out := make([]TeamOverdue, 0, len(by))
	for _, t := range by {
		out = append(out, *t)
	}
	crits := func(t TeamOverdue) int { return t.BySeverity[model.SeverityCritical.String()] }
	sort.Slice(out, func(i, j int) bool {
		if ci, cj := crits(out[i]), crits(out[j]); ci != cj {
			return ci > cj
		}
		if out[i].Total != out[j].Total {
			return out[i].Total > out[j].Total
		}
		return out[i].Team < out[j].Team
	})
	sort.SliceStable(crit, func(i, j int) bool {
		if !crit[i].DueAt.Equal(crit[j].DueAt) {
			return crit[i].DueAt.Before(crit[j].DueAt)
		}
		return moreUrgent(&crit[i], &crit[j], r.Now)
	})
	return out, crit
}
