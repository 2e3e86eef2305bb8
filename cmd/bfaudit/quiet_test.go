package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/reports/remind"
	"github.com/bfaudit/bfaudit/testkit/slackfake"
)

// quietEstate is the quickstart's plans, records and inventory, one more
// backfill whose owner field and purpose carry text that would ping
// people (<!here>, @team, #2, <script>), a history store, GitHub, Slack
// with owner messages, two teams and the default due policy.
func quietEstate(t *testing.T, ghURL, slackURL string) string {
	t.Helper()
	dir, _, _ := copyQuickstart(t)
	write(t, filepath.Join(dir, "plans/bf-5150-hostile.yaml"), `id: BF-5150
purpose: "Fix <script>alert(1)</script> for @team after #2 <!here>"
trigger: late_data
job_id: ledger_fix_5150
range: {start: 2026-09-01, end: 2026-10-01}
owner: "<!here> @ops-team #2"
status: replayed
`)
	t.Setenv("BFAUDIT_TEST_GITHUB_TOKEN", "ghp_test_token_1234567890")
	t.Setenv("BFAUDIT_TEST_SLACK_TOKEN", "xoxb-quiet-test")
	cfg := filepath.Join(dir, "quiet.yaml")
	write(t, cfg, `sources:
  - {type: records, name: plans, plans: [plans/], records: [records/]}
  - {type: inventory, name: exports, files: [inventory/warehouse.yaml, inventory/alerts.yaml]}
history:
  path: history.db
owners:
  alice@example.com: {github: alice, email: alice@example.com}
  bob@example.com: {github: bob, email: bob@example.com}
  dana@example.com: {github: dana-ledger, email: dana@example.com}
  carol@example.com: {github: carol, email: carol@example.com}
  "<!here> @ops-team #2": {github: eve, email: eve@example.com}
teams:
  revenue: {members: [alice@example.com], lead: bob@example.com, channel: "#revenue-data"}
  ledger: {members: [dana@example.com, "<!here> @ops-team #2"], lead: carol@example.com}
github:
  repo: acme/cleanup
  base_url: `+ghURL+`
  token_env: BFAUDIT_TEST_GITHUB_TOKEN
  write_interval: 1ms
slack:
  channel: "#leads"
  period: weekly
  owner_messages: true
  token_env: BFAUDIT_TEST_SLACK_TOKEN
  api_url: `+slackURL+`
`)
	return cfg
}

// writeCounter counts the GitHub writes (POST, PATCH) by kind and keeps
// every text written, in front of the fake.
type writeCounter struct {
	mu     sync.Mutex
	counts map[string]int // "create", "edit", "comment"
	texts  []string
}

func (c *writeCounter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost || r.Method == http.MethodPatch {
			var body struct{ Title, Body string }
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			_ = json.Unmarshal(b, &body)
			kind := map[string]string{http.MethodPatch: "edit"}[r.Method]
			switch {
			case kind != "":
			case strings.HasSuffix(r.URL.Path, "/comments"):
				kind = "comment"
			default:
				kind = "create"
			}
			c.mu.Lock()
			c.counts[kind]++
			c.texts = append(c.texts, body.Title+"\n"+body.Body)
			c.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (c *writeCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.counts
	c.counts = map[string]int{}
	return out
}

// The 30-day quiet test of issue 35: an unchanged estate audited once a
// day for 30 days writes only on the days something falls (a due date, a
// reminder, an escalation, the configured weekly digest), each exactly
// once, one message per recipient: the schedule is derived from the first
// run's findings (their due dates and owners) and the due policy. The
// first run files one issue per backfill with findings, messages each
// owner once, and reminds no one. Every text written carries the estate's
// <!here>, @team, #2 and <script> neutralised.
func TestThirtyQuietDays(t *testing.T) {
	if os.Getenv("BFAUDIT_TEST_CHILD") != "" {
		return
	}
	gh := newGHFake(t)
	wc := &writeCounter{counts: map[string]int{}}
	gh.srv.Config.Handler = wc.wrap(http.HandlerFunc(gh.serve))
	sl := slackfake.New(t, "xoxb-quiet-test")
	for _, u := range []string{"alice", "bob", "dana", "carol", "eve"} {
		sl.Users[u+"@example.com"] = "U0" + strings.ToUpper(u)
	}
	sl.Channels = append(sl.Channels, "revenue-data")
	cfg := quietEstate(t, gh.srv.URL, sl.APIURL())
	pol := due.DefaultPolicy()
	teams := map[string]string{"alice@example.com": "revenue", "dana@example.com": "ledger", "<!here> @ops-team #2": "ledger"}

	day0 := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC) // a Monday
	var first model.Report
	for d := range 30 {
		now := day0.AddDate(0, 0, d)
		sent := len(sl.Sent())
		code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", now.Format(time.RFC3339), "-f", "json")
		if code != exitOK && code != exitFindings {
			t.Fatalf("day %d: exit %d\n%s", d, code, stderr)
		}
		r := decodeReport(t, out)
		if d == 0 {
			first = r
		}
		if got, want := findingSet(r), findingSet(first); !slices.Equal(got, want) {
			t.Fatalf("day %d: the estate's findings changed; the test needs an unchanged estate:\n%v\nwant\n%v", d, got, want)
		}
		got := wc.take()
		var dues, digests, dms int
		for _, m := range sl.Sent()[sent:] {
			switch ev := fmt.Sprint(m.Metadata["event_type"]); {
			case ev == remind.Event:
				dues++
			case ev == "bfaudit_owner_dm" && m.ThreadTS == "":
				dms++
			case m.ThreadTS == "":
				digests++
			}
		}
		got["slack due"], got["slack digest"], got["slack owner dm"] = dues, digests, dms
		want := quietSchedule(first, pol, teams, d)
		for k, v := range got {
			if v == 0 {
				delete(got, k)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("day %d: writes %v, want %v", d, got, want)
		}
		if len(want) > 0 {
			t.Logf("day %2d: %v", d, want)
		}
	}

	// Every text that left, GitHub's and Slack's, with estate text neutralised.
	hostileSeen := false
	for _, text := range wc.texts {
		hostileSeen = hostileSeen || strings.Contains(text, "ops-team")
		if i := strings.Index(text, "<!-- bfaudit:"); i >= 0 {
			text = text[:i] // the hidden marker: an HTML comment, rendered by no one
		}
		bare := codeSpan.ReplaceAllString(text, "") // GitHub expands nothing in code
		for _, bad := range []string{"<!here>", "<script>", "@ops-team", "@team", "#2"} {
			if strings.Contains(bare, bad) {
				t.Errorf("%q reached GitHub raw:\n%.2000s", bad, text)
			}
		}
	}
	for _, m := range sl.Sent() {
		b, _ := json.Marshal(m.Blocks)
		text := m.Text + "\n" + string(b)
		hostileSeen = hostileSeen || strings.Contains(text, "ops-team")
		for _, bad := range []string{"<!here>", "<script>", `\u003c!here`, `\u003cscript`} {
			if strings.Contains(text, bad) {
				t.Errorf("%q reached Slack raw (to %s):\n%.2000s", bad, m.Channel, text)
			}
		}
	}
	if !hostileSeen {
		t.Errorf("no text carried the hostile owner: the check above checked nothing")
	}
}

var codeSpan = regexp.MustCompile("`[^`\n]*`")

// findingSet names a report's findings, sorted.
func findingSet(r model.Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Fingerprint+" "+f.BackfillID)
	}
	slices.Sort(out)
	return out
}

// quietSchedule is what day d should write, from the first run's findings
// and the due policy: on day 0 an issue per backfill with findings, and
// each owner's message; on each day a finding falls overdue one edit of
// its issue (body and label together); on each day a reminder falls
// (remind_before ahead, once the owner was told notice_days earlier, on
// day 0) or an escalation (escalate_after past), one comment per issue
// and one Slack message per owner (reminders) and per team (escalations);
// and on the first day of each week the digest and the owners' messages.
func quietSchedule(first model.Report, pol due.Policy, teams map[string]string, d int) map[string]int {
	day := func(t time.Time) int { return int(t.Sub(first.Now).Round(time.Hour) / due.Day) }
	issues, edits, comments := map[string]bool{}, map[string]bool{}, map[string]bool{}
	remindDM, escTeam, owners := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, f := range first.Findings {
		if f.Waived() {
			continue
		}
		if f.BackfillID != "" {
			issues[f.BackfillID] = true
		}
		if f.Owner != "" {
			owners[f.Owner] = true
		}
		if f.DueAt.IsZero() {
			continue
		}
		dueDay := day(f.DueAt)
		if dueDay == d && f.BackfillID != "" {
			edits[f.BackfillID] = true // an owner or none
		}
		if f.Owner == "" {
			continue
		}
		remindDay := max(day(f.DueAt.Add(-pol.RemindBefore)), pol.NoticeDays) // told on day 0
		if remindDay == d && remindDay < dueDay {
			comments[f.BackfillID] = f.BackfillID != ""
			remindDM[f.Owner] = true
		}
		if day(f.DueAt.Add(pol.EscalateAfter)) == d && teams[f.Owner] != "" {
			comments[f.BackfillID] = f.BackfillID != ""
			escTeam[teams[f.Owner]] = true
		}
	}
	count := func(m map[string]bool) int {
		n := 0
		for _, v := range m {
			if v {
				n++
			}
		}
		return n
	}
	want := map[string]int{"edit": count(edits), "comment": count(comments), "slack due": count(remindDM) + count(escTeam)}
	if d == 0 {
		want["create"] = count(issues)
	}
	if d%7 == 0 {
		want["slack digest"], want["slack owner dm"] = 1, count(owners)
	}
	for k, v := range want {
		if v == 0 {
			delete(want, k)
		}
	}
	return want
}
