package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	secrets "github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// hostileCases are the misbehaving servers of issue 12, each with a word
// the error should carry so the reader knows what happened, and the
// per-call timeout to run it with: reading up to the answer cap takes more
// than a second under the race detector.
var hostileCases = []struct {
	name, want string
	h          func() http.Handler
	timeout    time.Duration
}{
	{"stall", "no answer within slack.timeout", hostile.Stall, time.Second},
	{"drip", "no answer within slack.timeout", func() http.Handler { return hostile.Drip(50 * time.Millisecond) }, time.Second},
	{"retry after an hour", "retry budget", func() http.Handler { return hostile.RetryAfter(http.StatusTooManyRequests, 3600) }, time.Second},
	{"50 MB answer", "unexpected answer", func() http.Handler { return hostile.Huge(50 << 20) }, 10 * time.Second},
	{"header echo", "502", func() http.Handler { return hostile.EchoHeaders(http.StatusBadGateway) }, time.Second},
}

// A Slack (or a proxy before it) that stalls, drips, asks to wait an hour,
// answers 50 MB or echoes the request headers ends the post within its
// per-call timeout and retry budget, reports the error (exit 3), and the
// bot token or webhook URL appears in no error, result or dry-run output.
func TestHostileSlack(t *testing.T) {
	t.Cleanup(secrets.Reset)
	for _, transport := range []string{"web api", "webhook"} {
		for _, tc := range hostileCases {
			t.Run(transport+"/"+tc.name, func(t *testing.T) {
				srv := hostile.Server(t, tc.h())
				cfg := Config{Channel: "#leads", Period: PeriodEvery, Timeout: new(tc.timeout)}
				env := map[string]string{}
				switch transport {
				case "web api":
					cfg.APIURL, cfg.OwnerMessages = srv.URL, true
					env[DefaultTokenEnv] = hostile.Canary
				default:
					cfg.WebhookURLEnv = "HOOK"
					env["HOOK"] = srv.URL + "/services/T0/B0/" + hostile.Canary
				}
				owners := model.Owners{"alice": {Email: "alice@example.com"}}
				s, err := New(cfg, owners, nil, WithEnv(func(k string) string { return env[k] }))
				if err != nil {
					t.Fatal(err)
				}
				type outcome struct {
					res Result
					err error
				}
				done := make(chan outcome, 1)
				go func() {
					res, err := s.Post(context.Background(), estate(day(0), 3))
					done <- outcome{res, err}
				}()
				var o outcome
				select {
				case o = <-done:
				case <-time.After(30 * time.Second):
					t.Fatalf("Post did not return within 30s with a %s per-call timeout", tc.timeout)
				}
				if !errors.Is(o.err, ErrIncomplete) {
					t.Fatalf("Post = %+v, %v; want ErrIncomplete", o.res, o.err)
				}
				if !strings.Contains(o.err.Error(), tc.want) {
					t.Errorf("error %q does not say %q", o.err, tc.want)
				}
				res, _ := json.Marshal(o.res)
				for what, text := range map[string]string{"error": o.err.Error(), "result": string(res)} {
					if strings.Contains(strings.ToLower(text), strings.ToLower(hostile.Canary)) {
						t.Errorf("the canary leaked into the %s: %s", what, text)
					}
				}

				var out bytes.Buffer
				cfg.DryRun = true
				dry, err := New(cfg, owners, nil, WithEnv(func(k string) string { return env[k] }), WithDryRunWriter(&out))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := dry.Post(context.Background(), estate(day(0), 3)); err != nil {
					t.Fatalf("dry run: %v", err)
				}
				if out.Len() == 0 || strings.Contains(out.String(), hostile.Canary) {
					t.Errorf("dry run printed %d bytes, canary included: %v", out.Len(), strings.Contains(out.String(), hostile.Canary))
				}
			})
		}
	}
}
