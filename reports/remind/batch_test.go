package remind

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/reports/history"
)

// batchEstate is five high findings of two owners of team payments: three
// on BF-1 (issue 4), one on BF-2 (issue 5), one on no backfill, all due
// at dueAt, each told to its owner on told.
func batchEstate(t *testing.T, store *history.Store, now, dueAt, told time.Time) Input {
	t.Helper()
	mk := func(rule, bf, owner, uri string) model.Finding {
		return model.Finding{RuleID: rule, Title: rule + " title", BackfillID: bf, Owner: owner, ArtifactURI: uri,
			Fingerprint: model.Fingerprint(rule, model.BackfillID(bf), uri), Severity: model.SeverityHigh, DueAt: dueAt, Overdue: !now.Before(dueAt)}
	}
	fs := []model.Finding{
		mk("BF003", "BF-1", "alice@example.com", "bq://a"), mk("BF004", "BF-1", "alice@example.com", "bq://b"),
		mk("BF005", "BF-1", "bob@example.com", "bq://c"), mk("BF003", "BF-2", "alice@example.com", "bq://d"),
		mk("BF014", "", "bob@example.com", "bq://e"),
	}
	for _, f := range fs {
		if _, err := store.RecordNotice(context.Background(), history.Notice{Fingerprint: f.Fingerprint, Stage: history.StageListed,
			Channel: ChannelSlack, Recipient: f.Owner, SentAt: told}); err != nil {
			t.Fatal(err)
		}
	}
	return Input{Report: &model.Report{Now: now, Findings: fs}, Policy: due.DefaultPolicy(), Store: store,
		Owners: model.Owners{"alice@example.com": {GitHub: "alice", Email: "alice@example.com"},
			"bob@example.com": {GitHub: "bob", Email: "bob@example.com"}, "carol@example.com": {GitHub: "carol"}},
		Teams:  model.Teams{"payments": {Members: []string{"alice@example.com", "bob@example.com"}, Lead: "carol@example.com", Channel: "#payments-data"}},
		Issues: map[string]string{"BF-1": "https://github.com/acme/cleanup/issues/4", "BF-2": "https://github.com/acme/cleanup/issues/5"}}
}

// count is how many messages landed whose key has that prefix and suffix.
func (f *fakes) count(prefix, suffix string) int {
	n := 0
	for k := range f.landed {
		if strings.HasPrefix(k, prefix) && strings.HasSuffix(k, suffix) {
			n++
		}
	}
	return n
}

// One message per recipient per run: five findings due tomorrow are one
// comment per issue (two) and one direct message per owner (two), not
// five of each; past escalate_after they are one message to the team and
// one comment per issue. A run killed after its first message landed,
// before the notices were recorded, is rerun and sends nothing twice.
func TestRemindersAndEscalationsAreBatched(t *testing.T) {
	now := time.Date(2026, 11, 10, 6, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name             string
		dueAt            time.Time
		kind             string
		comments, slacks int
	}{
		{"reminders", now.Add(due.Day), "reminder", 2, 2},
		{"escalations", now.Add(-4 * due.Day), "escalation", 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := openStore(t)
			in := batchEstate(t, store, now, tc.dueAt, now.Add(-5*due.Day))
			fk := &fakes{landed: map[string]int{}, to: map[string]string{}}
			in.GitHub, in.Slack = fk, fk
			ctx, cancel := context.WithCancel(context.Background())
			fk.killAfter = cancel
			if _, err := Run(ctx, in); err == nil {
				t.Fatal("the killed run reported no error")
			}
			cancel()
			fk.killAfter = nil
			if _, err := Run(context.Background(), in); err != nil {
				t.Fatal(err)
			}
			if _, err := Run(context.Background(), in); err != nil { // the same day again: nothing
				t.Fatal(err)
			}
			if got := fk.count("github:", ":"+tc.kind); got != tc.comments {
				t.Errorf("%d %s comments, want %d (one per issue): %v", got, tc.kind, tc.comments, fk.landed)
			}
			if got := fk.count("slack:", ":"+tc.kind); got != tc.slacks {
				t.Errorf("%d %s Slack messages, want %d: %v", got, tc.kind, tc.slacks, fk.landed)
			}
			for k, n := range fk.landed {
				if n != 1 {
					t.Errorf("%s landed %d times", k, n)
				}
			}
			for _, f := range in.Report.Findings {
				ns, err := store.Notices(context.Background(), f.Fingerprint)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]bool{}
				for _, n := range ns {
					got[n.Stage+"/"+n.Channel] = true
				}
				if !got[tc.kind+"/slack"] || (f.BackfillID != "") != got[tc.kind+"/github"] {
					t.Errorf("%s (%s): notices %v", f.RuleID, f.BackfillID, got)
				}
			}
			var all []string
			for k, text := range fk.text {
				all = append(all, text)
				if strings.HasPrefix(k, "github:") && strings.Contains(text, "bq://e") {
					t.Errorf("a comment on an issue lists a finding of no backfill:\n%s", text)
				}
			}
			joined := strings.Join(all, "\n")
			for _, uri := range []string{"bq://a", "bq://b", "bq://c", "bq://d", "bq://e"} {
				if !strings.Contains(joined, uri) {
					t.Errorf("no message lists %s:\n%s", uri, joined)
				}
			}
			if strings.Contains(joined, "backfill ,") || strings.Contains(joined, "backfill ``") {
				t.Errorf("a finding of no backfill reads as an empty backfill:\n%s", joined)
			}
		})
	}
}

// A reminder goes only to an owner told of the finding at least
// notice_days before: a critical finding due two days after it is first
// listed (remind_before 2d, notice_days 2d) gets no reminder at all, its
// first notice being its issue; a high one first listed a day before its
// reminder window is reminded notice_days after that, not at once.
func TestNoReminderSoonAfterTheFirstNotice(t *testing.T) {
	day0 := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		sev      model.Severity
		listedOn int // the day its issue is first in step
		want     int // the day it is reminded, -1: never
	}{
		{"critical, listed on day 0", model.SeverityCritical, 0, -1},
		{"high, listed on day 4", model.SeverityHigh, 4, 6},
		{"high, listed on day 0", model.SeverityHigh, 0, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := openStore(t)
			pol := due.DefaultPolicy()
			f := model.Finding{RuleID: "BF004", Title: "grant", BackfillID: "BF-1", Owner: "alice@example.com",
				Fingerprint: model.Fingerprint("BF004", "BF-1", "pg://r"), Severity: tc.sev}
			fk := &fakes{landed: map[string]int{}, to: map[string]string{}}
			reminded := -1
			for d := range 10 {
				now := day0.Add(time.Duration(d) * due.Day)
				g := f
				due.Apply(&g, due.Start(day0, g, pol.For(g, "")), now)
				in := Input{Report: &model.Report{Now: now, Findings: []model.Finding{g}}, Policy: pol, Store: store, GitHub: fk, Slack: fk,
					Owners: model.Owners{"alice@example.com": {GitHub: "alice", Email: "alice@example.com"}}}
				if d >= tc.listedOn {
					in.Issues = map[string]string{"BF-1": "https://github.com/acme/cleanup/issues/4"}
				}
				before := len(fk.landed)
				if _, err := Run(context.Background(), in); err != nil {
					t.Fatal(err)
				}
				if len(fk.landed) > before && reminded < 0 {
					reminded = d
				}
			}
			if reminded != tc.want {
				t.Errorf("reminded on day %d, want %d (landed %v)", reminded, tc.want, fk.landed)
			}
		})
	}
}

var codeSpans = regexp.MustCompile("`[^`]*`")

// Estate text in reminders and escalations pings no one and injects no
// markup, on GitHub and Slack alike: an owner field "<!here> @ops-team #2"
// and an artifact named with <script> reach every message neutralised.
func TestRemindersNeutraliseEstateText(t *testing.T) {
	const owner = "<!here> @ops-team #2 <script>x</script>"
	now := time.Date(2026, 11, 10, 6, 0, 0, 0, time.UTC)
	for _, dueAt := range []time.Time{now.Add(due.Day), now.Add(-4 * due.Day)} {
		store := openStore(t)
		f := model.Finding{RuleID: "BF003", Title: "stale copy", BackfillID: "BF-1", Owner: owner, ArtifactURI: "bq://p/d/t_@team_#2<script>",
			Fingerprint: "fp1", Severity: model.SeverityHigh, DueAt: dueAt, Overdue: !now.Before(dueAt)}
		if _, err := store.RecordNotice(context.Background(), history.Notice{Fingerprint: "fp1", Stage: history.StageListed,
			Channel: ChannelGitHub, Recipient: owner, SentAt: now.Add(-5 * due.Day)}); err != nil {
			t.Fatal(err)
		}
		fk := &fakes{landed: map[string]int{}, to: map[string]string{}}
		in := Input{Report: &model.Report{Now: now, Findings: []model.Finding{f}}, Policy: due.DefaultPolicy(), Store: store, GitHub: fk, Slack: fk,
			Owners: model.Owners{owner: {GitHub: "alice", Email: "alice@example.com"}},
			Teams:  model.Teams{"payments": {Members: []string{owner}, Lead: "lead@example.com", Channel: "#payments"}},
			Issues: map[string]string{"BF-1": "https://github.com/acme/cleanup/issues/4"}}
		if _, err := Run(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		if len(fk.text) != 2 {
			t.Fatalf("%d messages, want a comment and a Slack message: %v", len(fk.text), fk.landed)
		}
		for k, text := range fk.text {
			if strings.HasPrefix(k, "github:") {
				text = codeSpans.ReplaceAllString(text, "") // GitHub expands nothing in code
			}
			for _, bad := range []string{"<!here>", "<script>", "@ops-team", "#2", "@team"} {
				if strings.Contains(text, bad) {
					if strings.HasPrefix(k, "slack:") && (bad == "@ops-team" || bad == "#2" || bad == "@team") {
						continue // plain text in Slack: no mention, no link
					}
					t.Errorf("%s carries %q raw:\n%s", k, bad, text)
				}
			}
		}
	}
}
