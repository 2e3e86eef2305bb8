package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/reports/remind"
	"github.com/bfaudit/bfaudit/testkit/slackfake"
)

// Issue 27's done-when, end to end through the command: one finding
// (BF-3100's BF008, medium, due in 7 days by the config) audited once a
// day for 20 days with GitHub and Slack, each run a real process. Its
// owner is reminded on day 5, the issue is labelled overdue on day 7 and
// the team's lead is told on day 10, each exactly once; day 14 is an
// outage of both sinks, caught up on day 15.
//
// The same 20 days are then run again, from scratch, with every run killed
// (SIGKILL) right after its first write reached GitHub or Slack, before the
// answer came back, and rerun until a run gets through without writing:
// every write of the schedule is a kill point once, and reruns start
// from a killed run. The messages, comments and issues at the end are
// exactly those of the uninterrupted run.
func TestDueNoticesExactlyOnceAcrossKills(t *testing.T) {
	if os.Getenv("BFAUDIT_TEST_CHILD") != "" {
		return
	}
	clean := dueSchedule(t, false)
	for stage, want := range map[string]int{"reminder github": 5, "reminder slack": 5, "overdue label": 7,
		"escalation github": 10, "escalation slack": 10} {
		if got := clean.firstDay[stage]; !slices.Equal(got, []int{want}) {
			t.Errorf("%s on days %v, want day %d only", stage, got, want)
		}
	}
	if got := clean.firstDay["digest"]; !slices.Equal(got, []int{0, 7, 15}) {
		t.Errorf("weekly digests on days %v, want 0, 7 and 15 (day 14 was an outage)", got)
	}
	if !strings.Contains(clean.state, "labels=[bfaudit overdue] assignees=[dana-ledger]") {
		t.Errorf("the overdue issue is not labelled overdue and assigned to its owner:\n%.600s", clean.state)
	}
	if !strings.Contains(clean.state, "to=C0LEDGERDATA") || !strings.Contains(clean.state, "@carol") {
		t.Errorf("the escalation did not reach the ledger team's channel and lead:\n%s", clean.state)
	}

	killed := dueSchedule(t, true)
	if killed.kills < 10 {
		t.Fatalf("only %d runs were killed; the sweep did not reach the writes", killed.kills)
	}
	if killed.state != clean.state {
		t.Errorf("after %d killed runs the sinks hold other messages than an uninterrupted schedule:\n--- killed\n%s\n--- uninterrupted\n%s",
			killed.kills, killed.state, clean.state)
	}
	t.Logf("%d runs killed after a write; the end state matches the uninterrupted run", killed.kills)
}

// scheduleResult is what 20 days of audits left in GitHub and Slack.
type scheduleResult struct {
	state    string           // every issue, comment and message, as a reader sees them
	firstDay map[string][]int // stage -> the days a message of it landed
	kills    int
}

// dueSchedule runs the 20 daily audits, each as its own process; with
// kill, every run is killed after its first write and rerun.
func dueSchedule(t *testing.T, kill bool) scheduleResult {
	t.Helper()
	gh := newGHFake(t)
	sl := slackfake.New(t, "xoxb-due-test")
	sl.Users["dana@example.com"] = "U0DANA"
	sl.Users["carol@example.com"] = "U0CAROL"
	sl.Channels = append(sl.Channels, "ledger-data")
	cfg := dueConfig(t, gh.srv.URL, sl.APIURL())

	var k childKiller
	gh.wrote = k.wrote
	sl.Posted = func(slackfake.Message) { k.wrote() }

	res := scheduleResult{firstDay: map[string][]int{}}
	day0 := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC) // a Monday
	for d := range 20 {
		outage := d == 14
		gh.mu.Lock()
		gh.failWrites = map[bool]int{true: 503}[outage]
		gh.mu.Unlock()
		sl.Down = outage
		before := sinkLines(gh, sl)
		for attempt := 0; ; attempt++ {
			if attempt > 40 {
				t.Fatalf("day %d: %d reruns each wrote again before being killed: a rerun repeats what the killed run wrote\n%s",
					d, attempt, strings.Join(sinkLines(gh, sl)[len(before):], "\n"))
			}
			code, killed, stderr := k.run(t, cfg, day0.AddDate(0, 0, d), kill && !outage)
			if killed {
				res.kills++
				continue
			}
			switch {
			case outage && code != exitIncomplete:
				t.Fatalf("day %d (outage): exit %d, want 3\n%s", d, code, stderr)
			case !outage && code != exitOK && code != exitFindings:
				t.Fatalf("day %d: exit %d\n%s", d, code, stderr)
			}
			break
		}
		after := sinkLines(gh, sl)
		if labelled(after) && !labelled(before) {
			res.firstDay["overdue label"] = append(res.firstDay["overdue label"], d)
		}
		for _, l := range after {
			if !slices.Contains(before, l) {
				if s := stageOf(l); s != "" && !slices.Contains(res.firstDay[s], d) {
					res.firstDay[s] = append(res.firstDay[s], d)
				}
			}
		}
	}
	res.state = strings.Join(sinkLines(gh, sl), "\n")
	return res
}

// dueConfig writes the estate (BF-3100's plan) and a config with history,
// GitHub, Slack, owners, a team and a 7-day policy for medium findings.
func dueConfig(t *testing.T, ghURL, slackURL string) string {
	t.Helper()
	dir := t.TempDir()
	plan, err := os.ReadFile(abs(t, "../../examples/quickstart/plans/bf-3100-ledger.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "plans/bf-3100-ledger.yaml"), string(plan))
	t.Setenv("BFAUDIT_TEST_GITHUB_TOKEN", "ghp_test_token_1234567890")
	t.Setenv("BFAUDIT_TEST_SLACK_TOKEN", "xoxb-due-test")
	cfg := filepath.Join(dir, "bfaudit.yaml")
	write(t, cfg, `sources:
  - {type: records, name: plans, plans: [plans/]}
history:
  path: history.db
owners:
  dana@example.com: {github: dana-ledger, email: dana@example.com}
  carol@example.com: {github: carol, email: carol@example.com}
teams:
  ledger: {members: [dana@example.com], lead: carol@example.com, channel: "#ledger-data"}
due:
  severity: {medium: 7d}
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

// childKiller runs audits as child processes and, when armed, kills the
// running one with SIGKILL from a fake's hook: the write is kept, the
// answer never arrives.
type childKiller struct {
	mu     sync.Mutex
	proc   *os.Process
	armed  bool
	killed bool
}

func (k *childKiller) wrote() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.armed && k.proc != nil {
		_ = k.proc.Kill()
		k.armed, k.killed = false, true
	}
}

// run audits as of now in a child process (TestChildAudit) with a digest
// lease short enough to take over a killed run's claims at once.
func (k *childKiller) run(t *testing.T, cfg string, now time.Time, arm bool) (code int, killed bool, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildAudit$")
	cmd.Env = append(os.Environ(), "BFAUDIT_TEST_CHILD=1", "BFAUDIT_TEST_DIGEST_LEASE=1ms",
		"BFAUDIT_TEST_CHILD_ARGS=audit\n-c\n"+cfg+"\n--now\n"+now.Format(time.RFC3339)+"\n-f\njson\n-o\njson="+filepath.Join(filepath.Dir(cfg), "report.json"))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	k.mu.Lock()
	if err := cmd.Start(); err != nil {
		k.mu.Unlock()
		t.Fatal(err)
	}
	k.proc, k.armed, k.killed = cmd.Process, arm, false
	k.mu.Unlock()
	err := cmd.Wait()
	k.mu.Lock()
	killed, k.proc, k.armed = k.killed, nil, false
	k.mu.Unlock()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, false, errb.String()
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode(), false, errb.String()
	case killed:
		return -1, true, errb.String()
	}
	t.Fatalf("audit as of %s: %v\n%s", now, err, errb.String())
	return 0, false, ""
}

// sinkLines is what a reader of GitHub and Slack sees, a line each: every
// issue (state, title, labels, assignees, body), comment and message
// (channel, metadata, text), without Slack's timestamps.
func sinkLines(gh *ghFake, sl *slackfake.Server) []string {
	gh.mu.Lock()
	var out []string
	for _, is := range gh.issues {
		out = append(out, fmt.Sprintf("issue #%d %s %q labels=%v assignees=%v body=%q", is.Number, is.State, is.Title, is.Labels, is.Assignees, is.Body))
	}
	for i, c := range gh.comments {
		out = append(out, fmt.Sprintf("comment %d %q", i+1, c))
	}
	gh.mu.Unlock()
	for _, m := range sl.Sent() {
		out = append(out, fmt.Sprintf("slack to=%s thread=%v meta=%v text=%q", m.Channel, m.ThreadTS != "", m.Metadata, m.Text))
	}
	return out
}

var (
	commentKind = regexp.MustCompile(`<!-- bfaudit:comment v1 [^>]*?(reminder|escalation|overdue)`)
	slackDue    = regexp.MustCompile(`:(reminder|escalation) part:`)
	overdueOn   = regexp.MustCompile(`labels=\[[^\]]*\boverdue\b`)
)

// labelled reports whether an issue carries the overdue label.
func labelled(lines []string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "issue ") && overdueOn.MatchString(l) })
}

// stageOf names the notice a new sink line is, or "".
func stageOf(line string) string {
	switch {
	case strings.HasPrefix(line, "comment "):
		if m := commentKind.FindStringSubmatch(line); m != nil {
			return m[1] + " github"
		}
	case strings.HasPrefix(line, "slack "):
		if m := slackDue.FindStringSubmatch(line); m != nil && strings.Contains(line, "event_type:"+remind.Event) {
			return m[1] + " slack"
		}
		if strings.Contains(line, "to=C0LEADS thread=false") {
			return "digest"
		}
	}
	return ""
}
