package gcp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestSummarize(t *testing.T) {
	echo := "<html><pre>Authorization: Bearer " + hostile.Canary + "\nCookie: a</pre></html>"
	tests := []struct {
		name      string
		err       error
		want      string
		wantCode  int
		forbidden []string
	}{
		{"JSON error keeps status and message",
			&googleapi.Error{Code: 403, Message: "Access Denied: Project p", Errors: []googleapi.ErrorItem{{Reason: "accessDenied", Message: "Access Denied: Project p"}},
				Body: `{"error":{"code":403,"message":"Access Denied: Project p","status":"PERMISSION_DENIED"}}`},
			"HTTP 403 PERMISSION_DENIED: Access Denied: Project p", 403, nil},
		{"HTML body from a proxy is dropped", &googleapi.Error{Code: 502, Body: echo}, "HTTP 502", 502, []string{hostile.Canary, "html", "Cookie"}},
		{"a message repeating a bearer token is masked",
			&googleapi.Error{Code: 500, Message: "upstream said Authorization: Bearer " + hostile.Canary + " was bad"},
			"HTTP 500: upstream said [REDACTED] was bad", 500, []string{hostile.Canary}},
		{"a token behind an odd space is masked too",
			&googleapi.Error{Code: 500, Message: "Bearer\u00a0" + hostile.Canary},
			"HTTP 500: [REDACTED]", 500, []string{hostile.Canary}},
		{"a long message is capped", &googleapi.Error{Code: 400, Message: strings.Repeat("x", 5000)}, "HTTP 400: xxx", 400, []string{strings.Repeat("x", 201)}},
		{"transport error loses the query",
			&url.Error{Op: "Get", URL: "https://bq.example.com/p?key=" + hostile.Canary + "&pageToken=abc", Err: errors.New("connection refused")},
			`Get "https://bq.example.com/p": connection refused`, 0, []string{hostile.Canary}},
		{"gRPC status keeps its code", status.Error(codes.PermissionDenied, "no token="+hostile.Canary),
			"gRPC PermissionDenied: no [REDACTED]", 0, []string{hostile.Canary}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.err)
			if !strings.HasPrefix(got.Error(), tt.want) {
				t.Errorf("Summarize = %q; want prefix %q", got, tt.want)
			}
			for _, f := range tt.forbidden {
				if strings.Contains(got.Error(), f) {
					t.Errorf("%q leaks %q", got, f)
				}
			}
			if Code(got) != tt.wantCode {
				t.Errorf("Code = %d; want %d", Code(got), tt.wantCode)
			}
		})
	}
	if status.Code(Summarize(status.Error(codes.ResourceExhausted, "q"))) != codes.ResourceExhausted {
		t.Error("a summarised gRPC error lost its code")
	}
	if Summarize(nil) != nil {
		t.Error("Summarize(nil) != nil")
	}
}

func TestRetryableKeepsRetryAfter(t *testing.T) {
	err := Retryable(Summarize(&googleapi.Error{Code: 429, Header: http.Header{"Retry-After": {"7"}}}))
	var re *remote.RetryableError
	if !errors.As(err, &re) || re.After != 7*time.Second {
		t.Fatalf("Retryable = %#v; want a retry after 7s", err)
	}
	if errors.As(Retryable(Summarize(&googleapi.Error{Code: 403})), &re) {
		t.Error("403 marked retryable")
	}
	if errors.As(Retryable(&url.Error{Op: "Get", URL: "u", Err: errAnswerTooLarge}), &re) {
		t.Error("an answer over the cap marked retryable")
	}
}

func TestPages(t *testing.T) {
	tests := []struct {
		name  string
		pages [][]string // last element of each is the next token
		max   int
		want  string // "" when every page is accepted
	}{
		{"ends normally", [][]string{{"a", "b", "1"}, {"c", ""}}, 0, ""},
		{"same token again", [][]string{{"a", "1"}, {"b", "1"}}, 0, "page token given before"},
		{"same items again", [][]string{{"a", "b", "1"}, {"a", "b", "2"}}, 0, "repeats items"},
		{"bound reached", [][]string{{"a", "1"}, {"b", "2"}, {"c", "3"}}, 3, "after 3 pages"},
		{"empty pages count toward the bound", [][]string{{"1"}, {"2"}, {"3"}}, 3, "after 3 pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Pages{Max: tt.max}
			var err error
			for _, pg := range tt.pages {
				if err = p.Next(pg[len(pg)-1], pg[:len(pg)-1]...); err != nil {
					break
				}
			}
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("err = %v; want %q", err, tt.want)
			}
		})
	}
	p := Pages{Announced: 10}
	var err error
	for i := 0; err == nil && i < 100; i++ {
		ids := make([]string, 100)
		for j := range ids {
			ids[j] = string(rune('a'+i)) + strings.Repeat("x", j)
		}
		err = p.Next("t"+string(rune('a'+i)), ids...)
	}
	if err == nil || !strings.Contains(err.Error(), "announced 10") {
		t.Fatalf("announced bound: %v", err)
	}
}

func TestHTTPClientCapsAnswers(t *testing.T) {
	srv := hostile.Server(t, hostile.Huge(MaxAnswerBytes+1<<20))
	hc, err := HTTPClient(context.Background(), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	if !IsAnswerTooLarge(err) {
		t.Fatalf("reading a %d MiB answer: %v; want the cap", (MaxAnswerBytes+1<<20)>>20, err)
	}

	small := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer small.Close()
	resp, err = hc.Get(small.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "ok" {
		t.Fatalf("small answer: %q %v", b, err)
	}
}

func TestCallTimeoutNotRetried(t *testing.T) {
	tries := 0
	_, err := Call(context.Background(), remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}, 20*time.Millisecond,
		func(ctx context.Context) (int, error) {
			tries++
			<-ctx.Done()
			return 0, &url.Error{Op: "Get", URL: "u", Err: ctx.Err()}
		})
	if err == nil || !strings.Contains(err.Error(), "no answer within 20ms") || tries != 1 {
		t.Fatalf("err %v after %d tries; want one try and the timeout named", err, tries)
	}
}

func TestCallRetriesServerErrors(t *testing.T) {
	tries := 0
	v, err := Call(context.Background(), remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}, time.Second,
		func(ctx context.Context) (string, error) {
			tries++
			if tries < 3 {
				return "", &googleapi.Error{Code: 503, Body: "<html>" + hostile.Canary + "</html>"}
			}
			return "done", nil
		})
	if err != nil || v != "done" || tries != 3 {
		t.Fatalf("v %q err %v tries %d", v, err, tries)
	}
	_, err = Call(context.Background(), remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}, time.Second,
		func(ctx context.Context) (string, error) {
			return "", &googleapi.Error{Code: 503, Body: "<html>" + hostile.Canary + "</html>"}
		})
	if err == nil || strings.Contains(err.Error(), hostile.Canary) || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("err %v", err)
	}
}
