package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

func TestDryRunPrintsPayloadsAndPostsNothing(t *testing.T) {
	f := newFakeSlack(t)
	f.users["alice@example.com"] = "U0ALICE"
	store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
	var out bytes.Buffer
	owners := model.Owners{"alice": {Email: "alice@example.com"}}
	dry := newBotSink(t, f, Config{DryRun: true, OwnerMessages: true}, owners, store, WithDryRunWriter(&out))
	res, err := audit(t, store, dry, estate(day(0), 120))
	if err != nil || !res.DryRun || res.Posted {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if len(f.sent()) != 0 || len(f.lookups) != 0 {
		t.Fatalf("dry run called Slack: %d posts, %d lookups", len(f.sent()), len(f.lookups))
	}
	type payload struct {
		Channel  string `json:"channel"`
		ThreadTS string `json:"thread_ts"`
		Blocks   []any  `json:"blocks"`
	}
	var payloads []payload
	printed := out.String()
	dec := json.NewDecoder(&out)
	for {
		var p payload
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("dry run output is not a stream of JSON payloads: %v", err)
		}
		payloads = append(payloads, p)
	}
	if len(payloads) < 4 {
		t.Fatalf("dry run printed %d payloads, want the digest parts, the fallback list and alice's message", len(payloads))
	}
	if p := payloads[0]; p.Channel != "#leads" || p.ThreadTS != "" || len(p.Blocks) == 0 || len(p.Blocks) > maxBlocks {
		t.Errorf("first payload: channel %q thread %q %d blocks", p.Channel, p.ThreadTS, len(p.Blocks))
	}
	if payloads[1].ThreadTS == "" {
		t.Error("a continuation payload does not show it is a threaded reply")
	}
	if last := payloads[len(payloads)-1]; last.Channel != "(users.lookupByEmail alice@example.com)" {
		t.Errorf("owner message payload goes to %q, want the e-mail a real run looks up", last.Channel)
	}
	if !strings.Contains(printed, `"type": "header"`) {
		t.Error("dry run output does not show the Block Kit blocks")
	}

	// The dry run did not use up the period: a real run posts.
	real := newBotSink(t, f, Config{}, nil, store)
	if res, err := real.Post(context.Background(), estate(day(0), 120)); err != nil || !res.Posted {
		t.Fatalf("real run after a dry run: %+v, %v; want posted", res, err)
	}
	out.Reset()
	res, err = dry.Post(context.Background(), estate(day(1), 120))
	if err != nil || res.Skipped == "" {
		t.Errorf("dry run after the period's digest: %+v, %v; want it to say a real run would skip", res, err)
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
	if !strings.Contains(out.String(), `"channel": "#leads"`) {
		t.Errorf("dry run output:\n%s", out.String())
	}
}
