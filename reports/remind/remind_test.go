package remind

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/reports/github"
	"github.com/bfaudit/bfaudit/reports/history"
	bfslack "github.com/bfaudit/bfaudit/reports/slack"
	"github.com/slack-go/slack"
)

// The real sinks fit.
var (
	_ GitHub = (*github.Sink)(nil)
	_ Slack  = (*bfslack.Sink)(nil)
)

// fakes keep what landed by key, like the sinks' once: a second send of a
// key is found and not sent again. down makes every call fail (an outage,
// GitHub's or Slack's 503); killAfter lands the write and then cancels the
// run's context before the caller hears back.
type fakes struct {
	landed    map[string]int // "github:" or "slack:" + key -> times landed
	to        map[string]string
	text      map[string]string // key -> the comment's or message's text
	down      bool
	killAfter func()
}

var errOutage = errors.New("503 Service Unavailable")

func (f *fakes) CommentOnce(ctx context.Context, number int, kind, key, body string, since time.Time) (bool, error) {
	return f.sendText(ctx, "github:"+key, "#"+body, body)
}

func (f *fakes) SendOnce(ctx context.Context, event, key, channel, text string, _ []slack.Block) (bfslack.Delivery, error) {
	sent, err := f.sendText(ctx, "slack:"+key, channel, text)
	return bfslack.Delivery{Sent: sent, Already: !sent && err == nil}, err
}

func (f *fakes) sendText(ctx context.Context, key, to, text string) (bool, error) {
	sent, err := f.send(ctx, key, to)
	if f.landed[key] == 1 && f.text[key] == "" {
		if f.text == nil {
			f.text = map[string]string{}
		}
		f.text[key] = text
	}
	return sent, err
}

func (f *fakes) send(ctx context.Context, key, to string) (bool, error) {
	if f.down {
		return false, errOutage
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if f.landed[key] > 0 {
		return false, nil
	}
	f.landed[key]++
	f.to[key] = to
	if f.killAfter != nil {
		f.killAfter()
		return false, context.Canceled
	}
	return true, nil
}

// sentTo is where the one message whose key has that prefix and suffix
// went ("" when none or several).
func (f *fakes) sentTo(prefix, suffix string) string {
	var out []string
	for k, to := range f.to {
		if strings.HasPrefix(k, prefix) && strings.HasSuffix(k, suffix) {
			out = append(out, to)
		}
	}
	if len(out) != 1 {
		return ""
	}
	return out[0]
}

func (f *fakes) LookupUser(ctx context.Context, email string) (string, error) {
	if f.down {
		return "", errOutage
	}
	return "U-" + email, nil
}

func openStore(t *testing.T) *history.Store {
	t.Helper()
	s, err := history.Open(context.Background(), history.Config{Path: filepath.Join(t.TempDir(), "h.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Issue 27's done-when, as far as the notices go: a finding first seen on
// day 0 under a 7-day policy is reminded on day 5, marked overdue on day 7
// and escalated on day 10, each exactly once, over 20 daily runs with a
// run killed after a write landed (day 5) and a day of outage (day 10,
// caught up on day 11).
func TestRemindOverdueEscalateOnceOver20Days(t *testing.T) {
	store := openStore(t)
	day0 := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	f := model.Finding{RuleID: "BF003", Title: "stale copy", BackfillID: "BF-1", Owner: "alice@example.com",
		Fingerprint: model.Fingerprint("BF003", "BF-1", "bq://t"), Severity: model.SeverityHigh}
	pol := due.DefaultPolicy() // high 7d, remind 2d before, escalate 3d after
	fk := &fakes{landed: map[string]int{}, to: map[string]string{}}
	stageDay := map[string]int{}
	for d := 0; d < 20; d++ {
		now := day0.Add(time.Duration(d) * due.Day)
		g := f
		due.Apply(&g, due.Start(day0, g, pol.For(g, "")), now)
		r := &model.Report{Now: now, Findings: []model.Finding{g}}
		in := Input{Report: r, Policy: pol, Store: store, GitHub: fk, Slack: fk,
			Owners: model.Owners{"alice@example.com": {GitHub: "alice", Email: "alice@example.com"}, "carol@example.com": {GitHub: "carol"}},
			Teams:  model.Teams{"payments": {Members: []string{"alice@example.com"}, Lead: "carol@example.com", Channel: "#payments-data"}},
			Issues: map[string]string{"BF-1": "https://github.com/acme/cleanup/issues/4"}}
		ctx, cancel := context.WithCancel(context.Background())
		fk.down, fk.killAfter = d == 10, nil
		if d == 5 {
			fk.killAfter = cancel // the first write lands, then the run dies
		}
		_, err := Run(ctx, in)
		cancel()
		if (d == 5 || d == 10) != (err != nil) {
			t.Errorf("day %d: error %v", d, err)
		}
		if d == 5 { // the rerun of the killed day
			fk.killAfter = nil
			if _, err := Run(context.Background(), in); err != nil {
				t.Errorf("day 5 rerun: %v", err)
			}
		}
		ns, err := store.Notices(context.Background(), f.Fingerprint)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			k := n.Stage + "/" + n.Channel
			if _, ok := stageDay[k]; !ok {
				stageDay[k] = d
			}
		}
	}
	want := map[string]int{"listed/github": 0, "reminder/github": 5, "reminder/slack": 5, "overdue/github": 7,
		"escalation/slack": 11, "escalation/github": 11} // day 10 was down: the next run catches up
	for k, d := range want {
		if got, ok := stageDay[k]; !ok || got != d {
			t.Errorf("%s recorded on day %d (recorded: %v), want day %d", k, got, ok, d)
		}
	}
	if len(stageDay) != len(want) {
		t.Errorf("notices %v, want %v", stageDay, want)
	}
	for k, n := range fk.landed {
		if n != 1 {
			t.Errorf("%s landed %d times", k, n)
		}
	}
	if len(fk.landed) != 4 {
		t.Errorf("landed %v, want the two reminders and the two escalations", fk.landed)
	}
	if got := fk.sentTo("slack:", ":escalation"); got != "#payments-data" {
		t.Errorf("escalation went to %q, want the team's channel", got)
	}
	if got := fk.sentTo("slack:", ":reminder"); got != "U-alice@example.com" {
		t.Errorf("reminder went to %q, want alice's DM", got)
	}
	if got := fk.sentTo("github:", ":escalation"); !strings.HasPrefix(got, "#@carol ") {
		t.Errorf("escalation comment %q does not mention the lead", got)
	}
}
