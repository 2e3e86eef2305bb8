package metrics

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

type push struct{ method, path, contentType, body string }

func fakeGateway(t *testing.T, status int) (string, *[]push) {
	var got []push
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, push{r.Method, r.URL.Path, r.Header.Get("Content-Type"), string(b)})
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &got
}

func pusher(t *testing.T, url string) *Pusher {
	t.Helper()
	p, err := NewPusher(PushgatewayConfig{Config: apiclient.Config{URL: url}, Job: "nightly"}, nil,
		remote.RetryPolicy{Attempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A complete run replaces the job's group; an incomplete one replaces
// only what it sends, and sends no last success.
func TestPushMethodFollowsCompleteness(t *testing.T) {
	url, got := fakeGateway(t, http.StatusOK)
	p := pusher(t, url)
	if err := p.Push(context.Background(), report(), Run{Complete: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Push(context.Background(), report(), Run{Complete: false, PreviousSuccess: now}); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 2 {
		t.Fatalf("pushes = %v", *got)
	}
	full, part := (*got)[0], (*got)[1]
	if full.method != http.MethodPut || full.path != "/metrics/job/nightly" || full.contentType != ContentType || !strings.Contains(full.body, LastSuccess+" ") {
		t.Errorf("complete run pushed %s %s %q:\n%s", full.method, full.path, full.contentType, full.body)
	}
	if part.method != http.MethodPost || strings.Contains(part.body, LastSuccess) || !strings.Contains(part.body, SourceUp) {
		t.Errorf("incomplete run pushed %s:\n%s", part.method, part.body)
	}
}

func TestPushFailureSaysPushgateway(t *testing.T) {
	url, _ := fakeGateway(t, http.StatusServiceUnavailable)
	err := pusher(t, url).Push(context.Background(), report(), Run{Complete: true})
	if err == nil || !strings.HasPrefix(err.Error(), "metrics: pushgateway: ") ||
		strings.Count(err.Error(), "PUT "+url+"/metrics/job/nightly") != 1 {
		t.Errorf("err = %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  PushgatewayConfig
		want string
	}{
		{"ok", PushgatewayConfig{Config: apiclient.Config{URL: "http://pushgateway:9091"}}, ""},
		{"token env unset is the push's problem", PushgatewayConfig{Config: apiclient.Config{URL: "http://pg:9091", TokenEnv: "BFAUDIT_TEST_UNSET_TOKEN"}}, ""},
		{"no url", PushgatewayConfig{}, "metrics.pushgateway.url: missing"},
		{"not http", PushgatewayConfig{Config: apiclient.Config{URL: "pushgateway:9091"}}, "metrics.pushgateway.url:"},
		{"credentials in url", PushgatewayConfig{Config: apiclient.Config{URL: "http://u:secret@pg:9091"}}, "must not carry credentials"},
		{"negative timeout", PushgatewayConfig{Config: apiclient.Config{URL: "http://pg:9091", Timeout: -time.Second}}, "metrics.pushgateway.timeout:"},
		{"job with a slash", PushgatewayConfig{Config: apiclient.Config{URL: "http://pg:9091"}, Job: "a/b"}, "metrics.pushgateway.job:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Config{Pushgateway: &c.cfg}.Validate()
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Errorf("Validate = %v, want %q", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

// --dry-run: the plan says what would be pushed where, and nothing is.
func TestPlanPushesNothing(t *testing.T) {
	url, got := fakeGateway(t, http.StatusOK)
	var b strings.Builder
	if err := pusher(t, url).Plan(&b, report(), Run{Complete: true}); err != nil {
		t.Fatal(err)
	}
	line := b.String()
	if len(*got) != 0 || strings.Count(line, "\n") != 1 || !strings.Contains(line, `"method":"PUT","url":"`+url+`/metrics/job/nightly"`) ||
		!strings.Contains(line, `bfaudit_source_up{source=\"warehouse\",system=\"bigquery\"} 1\n`) {
		t.Errorf("pushes %v, plan %s", *got, line)
	}
}
