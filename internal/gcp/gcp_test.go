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
		{"transport error masks the query's secrets",
			&url.Error{Op: "Get", URL: "https://bq.example.com/p?key=" + hostile.Canary + "&pageToken=abc&maxResults=1000", Err: errors.New("connection refused")},
			`Get "https://bq.example.com/p?key=[REDACTED]&maxResults=1000&pageToken=[REDACTED]": connection refused`, 0, []string{hostile.Canary, "abc"}},
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
	// A Retry-After date is read against the answer's Date, not the
	// local clock.
	date := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	err = Retryable(Summarize(&googleapi.Error{Code: 503, Header: http.Header{
		"Retry-After": {date.Add(5 * time.Second).Format(http.TimeFormat)}, "Date": {date.Format(http.TimeFormat)}}}))
	if !errors.As(err, &re) || re.After != 5*time.Second {
		t.Errorf("Retryable = %#v; want a retry after the 5s between Date and Retry-After", err)
	}
	if errors.As(Retryable(Summarize(&googleapi.Error{Code: 403})), &re) {
		t.Error("403 marked retryable")
	}
	if errors.As(Retryable(&url.Error{Op: "Get", URL: "u", Err: &remote.TooLargeError{Max: MaxAnswerBytes}}), &re) {
		t.Error("an answer over the cap marked retryable")
	}
}

// A REST quota answer brings google.rpc.RetryInfo in its body's details
// (gRPC's Retry-After): the retry waits the longer of it and Retry-After,
// and the summary keeps neither the body nor the delay in its text.
func TestRetryableKeepsRESTRetryInfo(t *testing.T) {
	body := `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}`
	for _, tc := range []struct {
		retryAfter string
		want       time.Duration
	}{{"", 7 * time.Second}, {"2", 7 * time.Second}, {"9", 9 * time.Second}} {
		ge := &googleapi.Error{Code: 429, Body: body, Header: http.Header{}}
		if tc.retryAfter != "" {
			ge.Header.Set("Retry-After", tc.retryAfter)
		}
		for _, err := range []error{ge, Summarize(ge)} {
			var re *remote.RetryableError
			if !errors.As(Retryable(err), &re) || re.After != tc.want {
				t.Errorf("Retry-After %q: Retryable(%T) = %#v; want a retry after %s", tc.retryAfter, err, Retryable(err), tc.want)
			}
		}
		if msg := Summarize(ge).Error(); msg != "HTTP 429 RESOURCE_EXHAUSTED: quota" {
			t.Errorf("summary %q", msg)
		}
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
	if !remote.IsTooLarge(err) {
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
