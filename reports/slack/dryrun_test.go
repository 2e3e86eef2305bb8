package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

// planLine is one line of a dry run: a call a real run would make.
type planLine struct {
	Sink    string          `json:"sink"`
	Method  string          `json:"method"`
	Channel string          `json:"channel"`
	Body    json.RawMessage `json:"body"`
}

// planned reads a dry run's output, which must be JSON Lines: one compact
// object per line with only the known keys, and nothing else.
func planned(t *testing.T, out string) []planLine {
	t.Helper()
	var calls []planLine
	for i, line := range strings.SplitAfter(out, "\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") || !strings.HasPrefix(line, "{") {
			t.Fatalf("dry run line %d is not a JSON object on its own line: %.200q", i+1, line)
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var c planLine
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("dry run line %d: %v: %.200s", i+1, err, line)
		}
		if dec.More() {
			t.Fatalf("dry run line %d holds more than one value", i+1)
		}
		if c.Sink != "slack" || c.Method == "" || len(c.Body) == 0 {
			t.Fatalf("dry run line %d lacks sink, method or body: %.200s", i+1, line)
		}
		calls = append(calls, c)
	}
	return calls
}

func methods(calls []planLine) string {
	var m []string
	for _, c := range calls {
		m = append(m, c.Method)
	}
	return strings.Join(m, " ")
}

func TestDryRunPrintsPlannedCallsAndMakesNone(t *testing.T) {
	f := newFakeSlack(t)
	f.Users["alice@example.com"] = "U0ALICE"
	store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
	var out bytes.Buffer
	owners := model.Owners{"alice": {Email: "alice@example.com"}}
	dry := newBotSink(t, f, Config{DryRun: true, OwnerMessages: true}, owners, store, WithDryRunWriter(&out))
	res, err := audit(t, store, dry, estate(day(0), 120))
	if err != nil || !res.DryRun || res.Posted {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if n := len(f.Seen()); n != 0 {
		t.Fatalf("dry run called Slack %d times", n)
	}
	calls := planned(t, out.String())
	if len(calls) < 5 {
		t.Fatalf("dry run planned %d calls (%s), want the look-up, the digest parts, the fallback list and alice's message", len(calls), methods(calls))
	}
	if c := calls[0]; c.Method != "users.lookupByEmail" || !strings.Contains(string(c.Body), `"email":"alice@example.com"`) {
		t.Errorf("first planned call: %s %s, want alice's look-up", c.Method, c.Body)
	}
	type payload struct {
		Channel  string `json:"channel"`
		ThreadTS string `json:"thread_ts"`
		Blocks   []any  `json:"blocks"`
	}
	var first payload
	if err := json.Unmarshal(calls[1].Body, &first); err != nil {
		t.Fatal(err)
	}
	if c := calls[1]; c.Method != "chat.postMessage" || c.Channel != "#leads" || first.Channel != "#leads" || first.ThreadTS != "" ||
		len(first.Blocks) == 0 || len(first.Blocks) > maxBlocks {
		t.Errorf("digest call: %s to %q, thread %q, %d blocks", c.Method, c.Channel, first.ThreadTS, len(first.Blocks))
	}
	var reply payload
	if err := json.Unmarshal(calls[2].Body, &reply); err != nil || reply.ThreadTS == "" {
		t.Errorf("a continuation does not show it is a threaded reply: %v", err)
	}
	if last := calls[len(calls)-1]; last.Channel != "(users.lookupByEmail alice@example.com)" {
		t.Errorf("owner message goes to %q, want the e-mail a real run looks up", last.Channel)
	}
	if !strings.Contains(out.String(), `"type":"header"`) {
		t.Error("dry run output does not show the Block Kit blocks")
	}

	// The dry run did not use up the period: a real run posts.
	real := newBotSink(t, f, Config{}, nil, store)
	if res, err := real.Post(context.Background(), estate(day(0), 120)); err != nil || !res.Posted {
		t.Fatalf("real run after a dry run: %+v, %v; want posted", res, err)
	}
	// Now a real run would skip the digest: the dry run plans only alice's
	// look-up and message, and says why.
	out.Reset()
	res, err = dry.Post(context.Background(), estate(day(1), 120))
	if err != nil || res.Skipped == "" {
		t.Errorf("dry run after the period's digest: %+v, %v; want it to say a real run would skip", res, err)
	}
	calls = planned(t, out.String())
	if got := methods(calls); got != "users.lookupByEmail chat.postMessage" || calls[1].Channel != "(users.lookupByEmail alice@example.com)" {
		t.Errorf("dry run after the digest went out plans %s, want alice's look-up and message only", got)
	}
}

func TestDryRunNeedsNoCredentials(t *testing.T) {
	var out bytes.Buffer
	s, err := New(Config{Channel: "#leads", DryRun: true, Period: PeriodEvery}, nil, nil,
		WithEnv(func(string) string { return "" }), WithDryRunWriter(&out))
	if err != nil {
		t.Fatalf("New for a dry run without a token: %v", err)
	}
	if _, err := s.Post(context.Background(), estate(day(0), 2)); err != nil {
		t.Fatal(err)
	}
	if calls := planned(t, out.String()); len(calls) != 1 || calls[0].Channel != "#leads" {
		t.Errorf("dry run output:\n%s", out.String())
	}
}

func TestWebhookDryRunPlansWebhookCalls(t *testing.T) {
	f := newFakeWebhook(t)
	var out bytes.Buffer
	s := newHookSink(t, f, Config{DryRun: true, Period: PeriodEvery}, nil, WithDryRunWriter(&out))
	if _, err := s.Post(context.Background(), estate(day(0), 120)); err != nil {
		t.Fatal(err)
	}
	calls := planned(t, out.String())
	if len(calls) < 3 || len(f.bodies) != 0 {
		t.Fatalf("planned %d calls, %d sent; want the parts planned and none sent", len(calls), len(f.bodies))
	}
	for _, c := range calls {
		if c.Method != "webhook" || c.Channel != "" {
			t.Errorf("planned %s to %q, want method webhook with no channel", c.Method, c.Channel)
		}
	}
	if strings.Contains(out.String(), "SECRETSECRET") {
		t.Error("dry run prints the webhook URL")
	}
}
