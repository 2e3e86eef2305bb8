package remote

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

func TestSummarizeErrorBody(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"google", `{"error":{"code":403,"message":"Permission bigquery.tables.list denied","status":"PERMISSION_DENIED","details":[{"x":"secret detail"}]}}`,
			"PERMISSION_DENIED: Permission bigquery.tables.list denied"},
		{"oauth", `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`, "invalid_grant: Token has been expired or revoked."},
		{"slack", `{"ok":false,"error":"channel_not_found"}`, "channel_not_found"},
		{"rabbitmq", `{"error":"Object Not Found","reason":"Not Found"}`, "Object Not Found: Not Found"},
		{"airflow problem+json", `{"title":"Forbidden","detail":"Access is denied","status":403,"type":"https://airflow.apache.org/docs/x"}`, "Forbidden: Access is denied"},
		{"github", `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`, "Bad credentials"},
		{"kubernetes", `{"kind":"Status","status":"Failure","message":"jobs is forbidden","reason":"Forbidden","code":403}`, "Forbidden: jobs is forbidden"},
		{"multi-line message", "{\"message\":\"line one\\n\\tline two\"}", "line one line two"},
		{"html", `<html><body>Authorization: Bearer x</body></html>`, ""},
		{"plain text", `upstream connect error`, ""},
		{"json without error shape", `{"headers":{"Authorization":"Bearer abc"}}`, ""},
		{"json array", `[{"message":"x"}]`, ""},
		{"truncated json", `{"message":"cut`, ""},
		{"echoed header in message", `{"message":"bad request, got Authorization: Bearer abcdef123456"}`, "bad request, got " + redact.Mask},
		{"bearer in message", `{"message":"token Bearer abcdef123456 expired"}`, "token " + redact.Mask + " expired"},
		{"object message ignored", `{"message":{"Authorization":"x"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SummarizeErrorBody([]byte(tt.body)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	long := `{"message":"` + strings.Repeat("é", 500) + `"}`
	if got := SummarizeErrorBody([]byte(long)); len([]rune(got)) != SummaryLimit || !strings.HasSuffix(got, "…") {
		t.Errorf("long message: %d characters %q", len([]rune(got)), got)
	}
}

// A proxy that echoes request headers (Authorization included) in its 502
// page must not put them into the error text: before, the first 512 bytes
// of the body went into the message.
func TestDoHTTPEchoedHeadersLeakNothing(t *testing.T) {
	srv := hostile.Server(t, hostile.EchoHeaders(http.StatusBadGateway))
	var waits []time.Duration
	p := RetryPolicy{Attempts: 2, Sleep: noSleep(&waits)}
	for _, status := range []string{"bearer", "basic"} {
		_, err := DoHTTP(context.Background(), nil, p, func() (*http.Request, error) {
			req, err := http.NewRequest("GET", srv.URL+"/api/v1/dags", nil)
			if status == "bearer" {
				req.Header.Set("Authorization", "Bearer "+hostile.Canary)
			} else {
				req.SetBasicAuth("guest", hostile.Canary)
			}
			req.Header.Set("X-Custom-Header", "visible")
			return req, err
		})
		var se *StatusError
		if !errors.As(err, &se) || se.Status != http.StatusBadGateway {
			t.Fatalf("%s: err = %v, want a StatusError 502", status, err)
		}
		msg := err.Error()
		for _, leak := range []string{hostile.Canary, "Authorization", "X-Custom-Header", "visible", "<html", "Bad Gateway</h1>"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s: error text holds %q: %s", status, leak, msg)
			}
		}
		if !strings.Contains(msg, "HTTP 502") {
			t.Errorf("%s: error text lacks the status: %s", status, msg)
		}
	}
}

func TestStatusErrorRedactsRegisteredSecrets(t *testing.T) {
	t.Cleanup(redact.Reset)
	redact.Add(hostile.Canary)
	e := &StatusError{Method: "GET", URL: "http://x/y", Status: 401, Summary: "token " + strings.ToUpper(hostile.Canary) + " refused"}
	if strings.Contains(strings.ToLower(e.Error()), hostile.Canary) {
		t.Errorf("registered secret in %q", e.Error())
	}
	if got := SummarizeErrorBody([]byte(`{"message":"bad key ` + hostile.Canary + `"}`)); strings.Contains(got, hostile.Canary) {
		t.Errorf("summary holds the secret: %q", got)
	}
}
