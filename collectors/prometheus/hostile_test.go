package prometheus

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// hostileCollector logs in with hostile.Canary as its bearer token, with a
// one-second call timeout and short real retry waits (the caller sets
// TEST_PROM_TOKEN).
func hostileCollector(t *testing.T, url string) *Prometheus {
	t.Helper()
	p := New()
	p.URL, p.TokenEnv = url, "TEST_PROM_TOKEN"
	p.Timeout = time.Second
	p.MaxPages = 20
	p.Retry = remote.RetryPolicy{Base: 10 * time.Millisecond}
	if err := p.Init(env("prom", "")); err != nil {
		t.Fatal(err)
	}
	return p
}

// The server misbehaves: the source fails within its bounds, says why,
// and the token is in no error.
func TestHostileServer(t *testing.T) {
	t.Setenv("TEST_PROM_TOKEN", hostile.Canary)
	for _, tt := range []struct {
		name string
		url  func(t *testing.T) string
		want string
	}{
		{"accepts and stalls (TCP)", func(t *testing.T) string { return "http://" + hostile.AcceptAndStall(t) }, "deadline"},
		{"stall", func(t *testing.T) string { return hostile.Server(t, hostile.Stall()).URL }, "deadline"},
		{"drip", func(t *testing.T) string { return hostile.Server(t, hostile.Drip(50*time.Millisecond)).URL }, "deadline"},
		{"429 Retry-After 3600", func(t *testing.T) string { return hostile.Server(t, hostile.RetryAfter(429, 3600)).URL }, "HTTP 429"},
		{"header-echoing 502", func(t *testing.T) string { return hostile.Server(t, hostile.EchoHeaders(502)).URL }, "HTTP 502"},
		// Read within the call timeout or not (the machine's speed
		// decides), a huge answer ends in an error; apiclient pins the cap.
		{"50 MB answer", func(t *testing.T) string { return hostile.Server(t, hostile.Huge(50<<20)).URL }, "list rules"},
		{"endless pages", func(t *testing.T) string {
			return hostile.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tok := r.URL.Query().Get("group_next_token") + "x"
				json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{
					"groups": []any{map[string]any{"name": "g" + tok, "file": "f", "rules": []any{}}}, "groupNextToken": tok}})
			})).URL
		}, "still paging after 20 pages"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sink, err := collectortest.Collect(t, hostileCollector(t, tt.url(t)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Collect = %v, want the source failed saying %q", err, tt.want)
			}
			out, _ := json.Marshal(sink)
			for _, s := range []string{err.Error(), string(out)} {
				if strings.Contains(s, hostile.Canary) || strings.Contains(s, "<html") {
					t.Errorf("the answer or the token leaked: %s", s)
				}
			}
		})
	}
}
