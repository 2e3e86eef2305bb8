package rabbitmq

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// fakeAPI follows the management API's paths for vhost "ok" (one backfill
// queue) and hands every request about vhost bad to the bad handler.
func fakeAPI(bad string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.EscapedPath()
		if bad != "" && strings.HasSuffix(path, "/"+bad) {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case path == "/api/whoami":
			fmt.Fprint(w, `{"name":"guest","tags":["management"]}`)
		case path == "/api/vhosts":
			fmt.Fprintf(w, `[{"name":"ok"},{"name":%q}]`, bad)
		case path == "/api/queues/ok":
			fmt.Fprint(w, `{"items":[{"name":"bf_1_retry","vhost":"ok","messages":3,"consumers":0}],"page":1,"page_count":1}`)
		case strings.HasPrefix(path, "/api/exchanges/"), strings.HasPrefix(path, "/api/queues/"):
			fmt.Fprintf(w, `{"items":[],"page":%s,"page_count":1}`, r.URL.Query().Get("page"))
		case strings.HasPrefix(path, "/api/bindings/"):
			fmt.Fprint(w, `[]`)
		default:
			http.NotFound(w, r)
		}
	})
}

// paging answers every page of a listing with what page makes of n.
func paging(page func(n int) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, page(n))
	})
}

// hostileCollector reads fake through Init, as in production, with a 1s
// per-call timeout and the canary as its password.
func hostileCollector(t *testing.T, url string, vhosts []string) *RabbitMQ {
	t.Helper()
	t.Setenv("BFAUDIT_TEST_RMQ_CANARY", hostile.Canary)
	r := &RabbitMQ{URL: url, Username: "guest", PasswordEnv: "BFAUDIT_TEST_RMQ_CANARY", Vhosts: vhosts,
		PageSize: 2, Timeout: time.Second, MaxPages: 50, Retry: noSleep}
	if err := r.Init(testEnv("rmq-hostile")); err != nil {
		t.Fatal(err)
	}
	return r
}

func collectWithin(t *testing.T, c collectors.Collector) (*collectors.TestSink, error) {
	t.Helper()
	sink := collectors.NewTestSink()
	done := make(chan error, 1)
	go func() { done <- collectors.Collect(context.Background(), c, sink) }()
	select {
	case err := <-done:
		return sink, err
	case <-time.After(20 * time.Second):
		t.Fatal("Collect still running after 20s with a 1s per-call timeout")
	}
	return nil, nil
}

func TestHostileAPIDegradesOnlyItsVhost(t *testing.T) {
	item := `{"name":"q","vhost":"bad"}`
	tests := []struct {
		name string
		bad  http.Handler
		want string
	}{
		{"stalls", hostile.Stall(), ""},
		{"drips", hostile.Drip(100 * time.Millisecond), ""},
		{"429 Retry-After 3600", hostile.RetryAfter(http.StatusTooManyRequests, 3600), "beyond the retry budget"},
		{"50 MB answer", hostile.Huge(50 << 20), ""},
		{"header-echoing 502", hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502"},
		{"huge page_count, same items", paging(func(n int) string {
			return fmt.Sprintf(`{"items":[%s],"page":%d,"page_count":1000000000}`, item, n)
		}), "repeats items already listed"},
		{"huge page_count, page ignored", paging(func(int) string {
			return `{"items":[` + item + `],"page":1,"page_count":1000000000}`
		}), "does not page"},
		{"huge page_count, endless new items", paging(func(n int) string {
			return fmt.Sprintf(`{"items":[{"name":"q%d","vhost":"bad"}],"page":%d,"page_count":1000000000}`, n, n)
		}), "still paging after 50 pages"},
		{"null items", paging(func(n int) string { return `{"items":null,"page":1,"page_count":1}` }), "no items"},
		{"null answer", paging(func(n int) string { return `null` }), "empty or null"},
		{"another vhost's queue", paging(func(n int) string {
			return `{"items":[{"name":"bf_1_retry","vhost":"ok"}],"page":1,"page_count":1}`
		}), `of vhost "ok"`},
	}
	for _, mode := range []string{"configured", "discovered"} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				srv := hostile.Server(t, fakeAPI("bad", tt.bad))
				var vhosts []string
				if mode == "configured" {
					vhosts = []string{"ok", "bad"}
				}
				r := hostileCollector(t, srv.URL, vhosts)
				sink, err := collectWithin(t, r)
				if err != nil {
					t.Fatalf("Collect failed the source: %v", err)
				}
				if len(sink.Errors) != 1 || sink.Errors[0].Scope != "bad" || !strings.Contains(sink.Errors[0].Error, tt.want) {
					t.Errorf("errors %+v, want one at scope bad mentioning %q", sink.Errors, tt.want)
				}
				if a := sink.Artifact("rabbitmq://rmq-hostile/ok/queue/bf_1_retry"); a == nil || a.Scope != "ok" {
					t.Errorf("the healthy vhost was not read: %+v", sink.Artifacts)
				}
				for _, e := range sink.Errors {
					if strings.Contains(e.Error, hostile.Canary) || strings.Contains(e.Error, "<html>") || strings.Contains(e.Error, "Authorization") {
						t.Errorf("error text leaks the answer: %s", e.Error)
					}
				}
			})
		}
	}
}

func TestHostileAPIFailsTheSourceWithinBudget(t *testing.T) {
	tests := []struct {
		name string
		h    http.Handler
		want string
	}{
		{"login stalls", hostile.Stall(), "log in"},
		{"login 429 Retry-After 3600", hostile.RetryAfter(http.StatusTooManyRequests, 3600), "beyond the retry budget"},
		{"login 502 echoes headers", hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502"},
		{"vhost listing null", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/vhosts" {
				fmt.Fprint(w, "null")
				return
			}
			fakeAPI("", nil).ServeHTTP(w, r)
		}), "list vhosts"},
		{"no vhost visible", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/vhosts" {
				fmt.Fprint(w, "[]")
				return
			}
			fakeAPI("", nil).ServeHTTP(w, r)
		}), "sees no vhost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := hostile.Server(t, tt.h)
			_, err := collectWithin(t, hostileCollector(t, srv.URL, nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Collect() = %v, want the source failed mentioning %q", err, tt.want)
			}
			if strings.Contains(err.Error(), hostile.Canary) || strings.Contains(err.Error(), "<html>") {
				t.Errorf("error leaks the answer: %v", err)
			}
		})
	}
	t.Run("wrong port", func(t *testing.T) {
		addr := hostile.AcceptAndStall(t) // a port that answers nothing
		_, err := collectWithin(t, hostileCollector(t, "http://"+addr, nil))
		if err == nil || !strings.Contains(err.Error(), "log in") {
			t.Fatalf("Collect() = %v, want the source failed", err)
		}
	})
}

func TestTimeoutMustBePositive(t *testing.T) {
	t.Setenv("BFAUDIT_TEST_RMQ_CANARY", hostile.Canary)
	for _, d := range []time.Duration{0, -time.Second, 24 * time.Hour} {
		r := &RabbitMQ{URL: "http://127.0.0.1:1", Username: "u", PasswordEnv: "BFAUDIT_TEST_RMQ_CANARY", PageSize: 10, Timeout: d}
		if err := r.Init(collectors.Env{}); err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("timeout %s: Init() = %v, want it refused", d, err)
		}
	}
}

// An error answer keeps the management API's own error fields, one line
// and capped; nothing else of the body reaches the error, above all not
// the Basic credential a proxy echoes back.
func TestErrorAnswerSummary(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("guest:" + hostile.Canary))
	long := strings.Repeat("é", 300)
	tests := []struct {
		name, body, want string
	}{
		{"API error", `{"error":"not_authorised","reason":"User not authorised to access virtual host"}`,
			"HTTP 403: not_authorised: User not authorised to access virtual host"},
		{"HTML echoing the credential", `<html>Authorization: Basic ` + basic + `</html>`, "HTTP 403"},
		{"JSON echoing the credential", `{"error":"bad_gateway","reason":"Authorization: Basic ` + basic + `"}`, "HTTP 403: bad_gateway: [REDACTED]"},
		{"JSON echoing the password", `{"error":"bad_gateway","reason":"user=guest password=` + hostile.Canary + `"}`, "HTTP 403: bad_gateway: user=guest [REDACTED]"},
		{"long reason", `{"error":"x","reason":"` + long + `"}`, "HTTP 403: x: " + long[:2*(remote.SummaryLimit-4)] + "…"},
		{"another shape", `{"unexpected":"shape"}`, "HTTP 403"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := hostile.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, tt.body)
			}))
			_, err := collectWithin(t, hostileCollector(t, srv.URL, nil))
			if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
				t.Fatalf("Collect() = %v, want it to end in %q", err, tt.want)
			}
			for _, leak := range []string{hostile.Canary, basic, "<html>", "unexpected"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("the error quotes the answer (%s): %v", leak, err)
				}
			}
		})
	}
}
