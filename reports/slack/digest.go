package slack

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/slack-go/slack"
)

// changes is what moved since the digest's reference point.
type changes struct {
	// Label says since when, e.g. "since the last digest (2 Mar 2026)".
	Label string
	// Known is false on a first digest with nothing to compare to.
	Known    bool
	New      []model.Finding
	Resolved []model.Finding
}

// digest holds what one channel digest shows.
type digest struct {
	r         *model.Report
	period    string // "week 2026-W10", "2026-03-02", "2 Mar 2026 09:00 UTC"
	changes   changes
	maxOldest int
	links     map[model.BackfillID]string // backfill id -> issue URL
	// commands adds, under each item, the command that clears it (an
	// owner's message: the owner acts on it).
	commands bool
	// teams groups the overdue items (WithTeams).
	teams model.Teams
}

func newDigest(r *model.Report, period string, ch changes, maxOldest int) *digest {
	d := &digest{r: r, period: period, changes: ch, maxOldest: maxOldest, links: map[model.BackfillID]string{}}
	for _, b := range r.Backfills {
		if b.IssueURL != "" {
			d.links[model.ParseID(b.Backfill.ID)] = b.IssueURL
		}
	}
	return d
}

// open lists the unwaived findings.
func (d *digest) open() []model.Finding {
	var out []model.Finding
	for _, f := range d.r.Findings {
		if !f.Waived() {
			out = append(out, f)
		}
	}
	return out
}

func (d *digest) title() string {
	if d.period == "" {
		return "Backfill audit digest"
	}
	return "Backfill audit digest · " + d.period
}

// fallbackText is the notification text: counts only, nothing from the estate.
func (d *digest) fallbackText() string {
	open := d.open()
	by := countBySeverity(open)
	var parts []string
	for _, s := range model.Severities() {
		if by[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", by[s], s))
		}
	}
	t := d.title() + ": " + plural(len(open), "open finding")
	if len(parts) > 0 {
		t += " (" + strings.Join(parts, ", ") + ")"
	}
	return t
}

// messages renders the digest, split into messages within Slack's limits.
func (d *digest) messages() []message {
	blocks := []slack.Block{header(d.title()), d.totals()}
	blocks = append(blocks, d.overdueBlocks()...)
	blocks = append(blocks, d.changeBlocks()...)
	blocks = append(blocks, d.oldestBlocks()...)
	blocks = append(blocks, d.ownerBlocks()...)
	if bf := d.backfillBlocks(); len(bf) > 0 {
		blocks = append(blocks, slack.NewDividerBlock())
		blocks = append(blocks, bf...)
	}
	return paginate(d.fallbackText(), blocks)
}

func (d *digest) totals() slack.Block {
	open := d.open()
	by := countBySeverity(open)
	var sev []string
	for _, s := range model.Severities() {
		sev = append(sev, fmt.Sprintf("%s %d", s, by[s]))
	}
	t := spread(open, "across")
	if w := len(d.r.Findings) - len(open); w > 0 {
		t += fmt.Sprintf(" (%d waived)", w)
	}
	t += "\n" + strings.Join(sev, " · ")
	var gaps []string
	for _, c := range d.r.Coverage {
		if !c.Full() {
			gaps = append(gaps, fmt.Sprintf("%s (%s)", esc(c.Source, 60), c.State()))
		}
	}
	if len(gaps) > 0 {
		t += "\n:warning: Coverage incomplete: " + strings.Join(gaps, ", ") +
			". Nothing those sources did not answer for is counted as resolved."
	}
	return section(fitLine(t, maxText))
}

func (d *digest) changeBlocks() []slack.Block {
	ch := d.changes
	if !ch.Known {
		return []slack.Block{contextBlock("First digest: nothing earlier to compare with, so no new or resolved items yet.")}
	}
	var out []slack.Block
	newTitle := fmt.Sprintf("*New %s: %d*", ch.Label, len(ch.New))
	if len(ch.New) == 0 {
		out = append(out, section(newTitle))
	} else {
		out = append(out, sections(newTitle, d.lines(ch.New, false))...)
	}
	resTitle := fmt.Sprintf("*Resolved %s: %d*", ch.Label, len(ch.Resolved))
	if len(ch.Resolved) == 0 {
		out = append(out, section(resTitle))
	} else {
		out = append(out, sections(resTitle, d.lines(ch.Resolved, false))...)
	}
	return out
}

// oldestBlocks lists the items open longest, from a day on: on a first
// digest nothing has an age yet, and there is no such list.
func (d *digest) oldestBlocks() []slack.Block {
	if d.maxOldest <= 0 {
		return nil
	}
	var aged []model.Finding
	for _, f := range d.open() {
		if ageDays(f, d.r.Now) > 0 {
			aged = append(aged, f)
		}
	}
	if len(aged) == 0 {
		return nil
	}
	sort.SliceStable(aged, func(i, j int) bool {
		a, b := seen(aged[i], d.r.Now), seen(aged[j], d.r.Now)
		if !a.Equal(b) {
			return a.Before(b)
		}
		if aged[i].Severity != aged[j].Severity {
			return aged[i].Severity > aged[j].Severity
		}
		return aged[i].Fingerprint < aged[j].Fingerprint
	})
	n := min(d.maxOldest, len(aged))
	return sections(fmt.Sprintf("*Oldest lingering items* (%d of the %d open a day or more)", n, len(aged)), d.lines(aged[:n], true))
}

func (d *digest) ownerBlocks() []slack.Block {
	open := d.open()
	if len(open) == 0 {
		return nil
	}
	counts := map[string]int{}
	for _, f := range open {
		counts[ownerOf(f)]++
	}
	owners := make([]string, 0, len(counts))
	for o := range counts {
		owners = append(owners, o)
	}
	sort.Slice(owners, func(i, j int) bool {
		if counts[owners[i]] != counts[owners[j]] {
			return counts[owners[i]] > counts[owners[j]]
		}
		return owners[i] < owners[j]
	})
	lines := make([]string, 0, len(owners))
	for _, o := range owners {
		name := esc(o, 60)
		if o == "" {
			name = "_unowned_"
		}
		lines = append(lines, fmt.Sprintf("• %s: %d", name, counts[o]))
	}
	return sections("*Open findings by owner*", lines)
}

// backfillBlocks gives each backfill with open findings its own block(s),
// linked to its GitHub issue when there is one.
func (d *digest) backfillBlocks() []slack.Block {
	groups := groupByBackfill(d.open())
	reports := map[model.BackfillID]model.BackfillReport{}
	for _, b := range d.r.Backfills {
		reports[model.ParseID(b.Backfill.ID)] = b
	}
	var out []slack.Block
	for _, g := range groups {
		by := countBySeverity(g.findings)
		var sev []string
		for _, s := range model.Severities() {
			if by[s] > 0 {
				sev = append(sev, fmt.Sprintf("%d %s", by[s], s))
			}
		}
		name := "_no backfill_"
		if g.id != "" {
			name = "*" + d.backfillRef(g.id) + "*"
		}
		head := fmt.Sprintf("%s · %d open (%s)", name, len(g.findings), strings.Join(sev, ", "))
		if br, ok := reports[g.key]; ok {
			if o := br.Backfill.Owner; o != "" {
				head += " · owner " + esc(o, 60)
			}
			if !br.Lifecycle.Done {
				head += " · next step: " + br.Lifecycle.Next.String()
			}
		}
		var bfOwner string
		if br, ok := reports[g.key]; ok {
			bfOwner = br.Backfill.Owner
		}
		lines := make([]string, 0, len(g.findings))
		for _, f := range g.findings {
			line := "• " + d.itemText(f, false, true, bfOwner)
			if d.commands {
				line += fixText(f)
			}
			lines = append(lines, line)
		}
		out = append(out, sections(head, lines)...)
	}
	return out
}

// lines renders findings one per line.
func (d *digest) lines(fs []model.Finding, age bool) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, "• "+d.itemText(f, age, false, ""))
	}
	return out
}

// itemText is one finding: severity, rule, title, artifact, backfill (linked
// to its issue), owner and, for lingering items, how long it has been open
// (from a day on: a finding first seen this run has no age yet), then the
// time left before its due date, or how long it is overdue, in bold. Listed
// under its backfill (inBackfill, whose owner is bfOwner), the line leaves
// out the backfill and an owner the heading already names.
func (d *digest) itemText(f model.Finding, age, inBackfill bool, bfOwner string) string {
	parts := []string{fmt.Sprintf("*%s* %s %s", strings.ToUpper(f.Severity.String()), esc(f.RuleID, 20), esc(f.Title, 120))}
	if f.ArtifactURI != "" {
		parts = append(parts, esc(f.ArtifactURI, 200))
	}
	if f.BackfillID != "" && !inBackfill {
		parts = append(parts, d.backfillRef(f.BackfillID))
	}
	if !inBackfill || (f.Owner != "" && !strings.EqualFold(ownerOf(f), strings.TrimSpace(bfOwner))) {
		parts = append(parts, ownerLabel(f))
	}
	if days := ageDays(f, d.r.Now); age && days > 0 {
		parts = append(parts, fmt.Sprintf("open %d d", days))
	}
	if left := due.Left(f, d.r.Now); left != "" && !f.Waived() {
		if f.Overdue || !d.r.Now.Before(f.DueAt) {
			left = "*" + left + "*"
		} else {
			left += " (" + due.Date(f.DueAt) + ")"
		}
		parts = append(parts, left)
	}
	return strings.Join(parts, " · ")
}

// backfillRef names a backfill, linked to its GitHub issue when known.
func (d *digest) backfillRef(id string) string {
	if u, ok := d.links[model.ParseID(id)]; ok {
		return link(u, id)
	}
	return esc(id, 80)
}

func ownerLabel(f model.Finding) string {
	if f.Owner == "" {
		return "_unowned_"
	}
	return esc(f.Owner, 60)
}

func ownerOf(f model.Finding) string { return strings.TrimSpace(f.Owner) }

// ageDays is how many whole days f has been open.
func ageDays(f model.Finding, now time.Time) int { return int(now.Sub(seen(f, now)).Hours() / 24) }

// plural counts a noun: "1 backfill", "2 backfills".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// spread says how many open findings there are and where, counting those
// tied to no backfill apart: "*6 open findings* across 3 backfills", or
// "*6 open findings*: 4 across 3 backfills, 2 with no backfill".
func spread(fs []model.Finding, prep string) string {
	if len(fs) == 0 {
		return "*No open findings*"
	}
	var backfills, loose int
	for _, g := range groupByBackfill(fs) {
		if g.id == "" {
			loose = len(g.findings)
		} else {
			backfills++
		}
	}
	total := "*" + plural(len(fs), "open finding") + "*"
	switch {
	case loose == 0:
		return total + " " + prep + " " + plural(backfills, "backfill")
	case backfills == 0:
		return total + ", none tied to a backfill"
	}
	return fmt.Sprintf("%s: %d %s %s, %d with no backfill", total, len(fs)-loose, prep, plural(backfills, "backfill"), loose)
}

// seen is when a finding was first seen; a report without history counts
// from now.
func seen(f model.Finding, now time.Time) time.Time {
	if f.FirstSeen.IsZero() {
		return now
	}
	return f.FirstSeen
}

func countBySeverity(fs []model.Finding) map[model.Severity]int {
	by := map[model.Severity]int{}
	for _, f := range fs {
		by[f.Severity]++
	}
	return by
}

type backfillGroup struct {
	id       string // as the first finding spells it
	key      model.BackfillID
	findings []model.Finding
}

// groupByBackfill groups findings by backfill id, most severe
// and largest first; findings with no backfill come last.
func groupByBackfill(fs []model.Finding) []backfillGroup {
	idx := map[model.BackfillID]int{}
	var groups []backfillGroup
	for _, f := range fs {
		k := model.ParseID(f.BackfillID)
		i, ok := idx[k]
		if !ok {
			i = len(groups)
			idx[k] = i
			groups = append(groups, backfillGroup{id: f.BackfillID, key: k})
		}
		groups[i].findings = append(groups[i].findings, f)
	}
	worst := func(g backfillGroup) model.Severity {
		var w model.Severity
		for _, f := range g.findings {
			w = max(w, f.Severity)
		}
		return w
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if (a.id == "") != (b.id == "") {
			return b.id == ""
		}
		if worst(a) != worst(b) {
			return worst(a) > worst(b)
		}
		if len(a.findings) != len(b.findings) {
			return len(a.findings) > len(b.findings)
		}
		return a.key < b.key
	})
	for _, g := range groups {
		sort.SliceStable(g.findings, func(i, j int) bool {
			if g.findings[i].Severity != g.findings[j].Severity {
				return g.findings[i].Severity > g.findings[j].Severity
			}
			return g.findings[i].Fingerprint < g.findings[j].Fingerprint
		})
	}
	return groups
}
