package slack

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/reports/history"
)

// fakeWebhook is an incoming webhook: JSON bodies in, "ok" out.
type fakeWebhook struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []sent
	limit  int // answer this many first calls with 429
}

const hookPath = "/services/T000/B000/SECRETSECRET"

func newFakeWebhook(t *testing.T) *fakeWebhook {
	f := &fakeWebhook{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != hookPath || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "invalid_token", http.StatusForbidden)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.limit > 0 {
			f.limit--
			w.Header().Set("Retry-After", "2")
			http.Error(w, "rate_limited", http.StatusTooManyRequests)
			return
		}
		var m struct {
			Text     string `json:"text"`
			ThreadTS string `json:"thread_ts"`
			Blocks   []any  `json:"blocks"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, "invalid_payload", http.StatusBadRequest)
			return
		}
		f.bodies = append(f.bodies, sent{Text: m.Text, ThreadTS: m.ThreadTS, Blocks: m.Blocks})
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeWebhook) env(name string) string {
	if name == "SLACK_WEBHOOK_URL" {
		return f.srv.URL + hookPath
	}
	return ""
}

func newHookSink(t *testing.T, f *fakeWebhook, cfg Config, store *history.Store, opts ...Option) *Sink {
	t.Helper()
	cfg.WebhookURLEnv = "SLACK_WEBHOOK_URL"
	base := []Option{WithEnv(f.env), WithSleep(func(context.Context, time.Duration) error { return nil })}
	s, err := New(cfg, nil, store, append(base, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func TestWebhookDigest(t *testing.T) {
	f := newFakeWebhook(t)
	f.limit = 1
	var waits []time.Duration
	store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
	s := newHookSink(t, f, Config{}, store,
		WithSleep(func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }))
	res, err := audit(t, store, s, estate(day(0), 120))
	if err != nil || !res.Posted {
		t.Fatalf("Post: %+v, %v", res, err)
	}
	if len(waits) != 1 || waits[0] != 2*time.Second {
		t.Errorf("waited %v, want the webhook's Retry-After of 2s once", waits)
	}
	ps := f.bodies
	checkLimits(t, ps)
	if len(ps) < 3 || res.Messages != len(ps) {
		t.Fatalf("webhook got %d messages (result %d), want the 120 backfills split over at least 3", len(ps), res.Messages)
	}
	for i, p := range ps {
		if p.ThreadTS != "" {
			t.Errorf("message %d carries thread_ts %q; a webhook cannot thread", i+1, p.ThreadTS)
		}
	}
	if !strings.Contains(allText(ps[len(ps)-1:]), "Part ") {
		t.Error("the last webhook message does not say which part it is")
	}
	// Same period again: nothing.
	if res, err := audit(t, store, s, estate(day(1), 120)); err != nil || res.Posted {
		t.Errorf("rerun: %+v, %v; want skipped", res, err)
	}
}

func TestWebhookErrorsHideTheURL(t *testing.T) {
	f := newFakeWebhook(t)
	s := newHookSink(t, f, Config{Period: PeriodEvery}, nil)
	f.srv.Close() // connection refused: the error names the URL it dialled
	_, err := s.Post(context.Background(), estate(day(0), 1))
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("Post to a dead webhook = %v, want ErrIncomplete", err)
	}
	if strings.Contains(err.Error(), "SECRETSECRET") {
		t.Errorf("error leaks the webhook URL: %v", err)
	}
}

func TestWebhookCannotSendOwnerMessages(t *testing.T) {
	f := newFakeWebhook(t)
	_, err := New(Config{WebhookURLEnv: "SLACK_WEBHOOK_URL", OwnerMessages: true, Period: PeriodEvery}, nil, nil, WithEnv(f.env))
	if err == nil || !strings.Contains(err.Error(), "slack.owner_messages") {
		t.Fatalf("New = %v, want an error naming slack.owner_messages", err)
	}
}
