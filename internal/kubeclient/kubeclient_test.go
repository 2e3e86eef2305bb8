package kubeclient

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// answer is a round tripper that gives one canned answer.
type answer struct {
	status int
	header http.Header
	body   string
}

func (a answer) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: a.status, Header: a.header.Clone(), Body: io.NopCloser(strings.NewReader(a.body)), Request: r}, nil
}

// through sends one GET through the transport Bound sets on a config.
func through(t *testing.T, a answer) (*http.Response, metav1.Status) {
	t.Helper()
	cfg := &rest.Config{}
	Bound(cfg, 0)
	resp, err := cfg.WrapTransport(a).RoundTrip(&http.Request{Method: http.MethodGet})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var st metav1.Status
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatalf("error answer %q is not a Status: %v", raw, err)
		}
	}
	return resp, st
}

func TestGuardKeepsOnlyTheStatusOfAnErrorAnswer(t *testing.T) {
	page := "<html><pre>Authorization: Bearer " + hostile.Canary + "</pre></html>"
	resp, st := through(t, answer{http.StatusBadGateway, http.Header{"Retry-After": {"3600"}}, page})
	if resp.Header.Get("Retry-After") != "" {
		t.Error("Retry-After reaches client-go: it would retry by itself")
	}
	if st.Code != http.StatusBadGateway || st.Details == nil || st.Details.RetryAfterSeconds != 3600 {
		t.Errorf("status %+v, want code 502 with Retry-After 3600 in its details", st)
	}
	if strings.Contains(st.Message, hostile.Canary) || strings.Contains(st.Message, "<html") {
		t.Errorf("the answer's body travels on: %q", st.Message)
	}
}

// The API server's own Status keeps its reason; its message is one
// masked line of at most remote.SummaryLimit characters.
func TestGuardCapsTheAPIsOwnMessage(t *testing.T) {
	body := `{"kind":"Status","apiVersion":"v1","reason":"Forbidden","message":"no access"}`
	_, st := through(t, answer{http.StatusForbidden, http.Header{}, body})
	if st.Message != "no access" || st.Reason != metav1.StatusReasonForbidden || st.Code != http.StatusForbidden {
		t.Errorf("status %+v, want the API's reason and its message", st)
	}
	long := `{"kind":"Status","apiVersion":"v1","reason":"Forbidden","message":"denied:\nAuthorization: Bearer ` + hostile.Canary + " " + strings.Repeat("x", 500) + `"}`
	_, st = through(t, answer{http.StatusForbidden, http.Header{}, long})
	if strings.Contains(st.Message, hostile.Canary) || strings.Contains(st.Message, "\n") || len([]rune(st.Message)) > remote.SummaryLimit || !strings.HasPrefix(st.Message, "denied: ") {
		t.Errorf("message %q, want one masked line of at most %d characters", st.Message, remote.SummaryLimit)
	}
}

// Another JSON error shape (a gateway in front of the API server) keeps
// its code and message, never the rest of the body.
func TestGuardSummarisesOtherJSONErrors(t *testing.T) {
	body := `{"error":"rate_limited","message":"slow down","echo":"Authorization: Bearer ` + hostile.Canary + `"}`
	_, st := through(t, answer{http.StatusBadGateway, http.Header{}, body})
	msg, _ := json.Marshal(st)
	if !strings.Contains(string(msg), "rate_limited: slow down") || strings.Contains(string(msg), hostile.Canary) {
		t.Errorf("status %s, want the gateway's code and message only", msg)
	}
}

// A Retry-After date is read against the answer's own Date, not the local
// clock.
func TestGuardReadsRetryAfterAgainstTheAnswersDate(t *testing.T) {
	date := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{"Date": {date.Format(http.TimeFormat)}, "Retry-After": {date.Add(40 * time.Second).Format(http.TimeFormat)}}
	_, st := through(t, answer{http.StatusServiceUnavailable, h, ""})
	if st.Details == nil || st.Details.RetryAfterSeconds != 40 {
		t.Errorf("status %+v, want Retry-After 40s in its details", st)
	}
}

// endless is an answer body that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestGuardFailsAnEndlessAnswer(t *testing.T) {
	cfg := &rest.Config{}
	Bound(cfg, 0)
	rt := cfg.WrapTransport(roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(endless{}), Request: r}, nil
	}))
	resp, err := rt.RoundTrip(&http.Request{Method: http.MethodGet})
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if !remote.IsTooLarge(err) || n != maxAnswerBytes {
		t.Errorf("reading an endless answer: %d bytes, %v; want the cap", n, err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRetryable(t *testing.T) {
	gr := schema.GroupResource{Resource: "jobs"}
	tests := []struct {
		name  string
		err   error
		retry bool
	}{
		{"429", apierrors.NewTooManyRequests("slow down", 2), true},
		{"503", apierrors.NewServiceUnavailable("down"), true},
		{"502", apierrors.NewGenericServerResponse(502, "GET", gr, "", "", 0, false), true},
		{"403", apierrors.NewForbidden(gr, "", errors.New("no")), false},
		{"not an API error", errors.New("dial"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var re *remote.RetryableError
			if got := errors.As(Retryable(tt.err), &re); got != tt.retry {
				t.Errorf("retryable %v, want %v", got, tt.retry)
			}
		})
	}
	var re *remote.RetryableError
	if !errors.As(Retryable(apierrors.NewTooManyRequests("", 2)), &re) || re.After != 2*time.Second {
		t.Errorf("retry %+v, want one after the server's 2s", re)
	}
}

func TestConfigRefusesAKubeconfigThatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Config(dir, ""); err == nil {
		t.Error("a directory was taken as the kubeconfig")
	}
	missing := filepath.Join(dir, "none")
	_, err := Config(missing, "")
	if err == nil || !strings.Contains(err.Error(), missing) || strings.HasPrefix(err.Error(), "kubeconfig") {
		t.Errorf("Config(missing) = %v, want an error naming the path, without the caller's key", err)
	}
	if err := os.WriteFile(missing, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Config(missing, "nope"); err == nil {
		t.Error("an unknown context was accepted")
	}
}
