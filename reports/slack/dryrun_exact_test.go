package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

// The CLI records nothing in a dry run; a weekly digest must still print.
func TestWeeklyDryRunWithoutAStore(t *testing.T) {
	var out bytes.Buffer
	s, err := New(Config{Channel: "#leads", DryRun: true}, nil, nil,
		WithEnv(func(string) string { return "" }), WithDryRunWriter(&out))
	if err != nil {
		t.Fatalf("New for a weekly dry run without a history store: %v", err)
	}
	if _, err := s.Post(context.Background(), estate(day(0), 2)); err != nil || out.Len() == 0 {
		t.Fatalf("dry run: %v, printed %d bytes", err, out.Len())
	}
}

// A dry run over a previewed (not recorded) run prints exactly the messages
// the real run then posts: new and resolved since the last digest, ages.
func TestDryRunPrintsWhatTheRealRunPosts(t *testing.T) {
	eachStore(t, func(t *testing.T, hcfg history.Config) {
		ctx := context.Background()
		f := newFakeSlack(t)
		store := openStore(t, hcfg)
		if _, err := audit(t, store, newBotSink(t, f, Config{}, nil, store), estate(day(0), 6)); err != nil {
			t.Fatal(err)
		}
		// A week later: one grant gone, one backfill more.
		next := func() *model.Report { return without(estate(day(8), 7), "gcp://proj/iam/grant_0") }

		var out bytes.Buffer
		r := next()
		if err := store.Preview(ctx, r); err != nil {
			t.Fatal(err)
		}
		dry := newBotSink(t, f, Config{DryRun: true}, nil, store, WithDryRunWriter(&out))
		if res, err := dry.Post(ctx, r); err != nil || res.Skipped != "" {
			t.Fatalf("dry run: %+v, %v", res, err)
		}
		var printed []sent
		for _, c := range planned(t, out.String()) {
			var p sent
			if err := json.Unmarshal(c.Body, &p); err != nil {
				t.Fatal(err)
			}
			printed = append(printed, p)
		}
		txt := allText(printed)
		for _, want := range []string{"*New since the last digest (2 Mar 2026): 2*", "*Resolved since the last digest (2 Mar 2026): 1*", "open 8 d"} {
			if !strings.Contains(txt, want) {
				t.Errorf("dry run lacks %q:\n%s", want, txt)
			}
		}

		before := len(f.Sent())
		res, err := audit(t, store, newBotSink(t, f, Config{}, nil, store), next())
		if err != nil || !res.Posted {
			t.Fatalf("real run after the dry run: %+v, %v", res, err)
		}
		posted := f.Sent()[before:]
		if len(posted) != len(printed) {
			t.Fatalf("dry run printed %d messages, the real run posted %d", len(printed), len(posted))
		}
		for i, p := range posted {
			if p.Text != printed[i].Text || !reflect.DeepEqual(p.Blocks, printed[i].Blocks) {
				t.Errorf("message %d differs:\nprinted: %s\nposted:  %s", i+1, allText(printed[i:i+1]), allText([]sent{p}))
			}
		}
	})
}
