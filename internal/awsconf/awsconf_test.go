package awsconf

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/bfaudit/bfaudit/internal/remote"
)

func TestCheckNamesTheKey(t *testing.T) {
	ok := Settings{Regions: []string{"eu-west-1", "us-gov-west-1"}, Timeout: time.Minute}
	if err := ok.Check(); err != nil {
		t.Fatalf("valid settings refused: %v", err)
	}
	tests := []struct {
		s    Settings
		want string
	}{
		{Settings{}, "regions: missing"},
		{Settings{Regions: []string{"Europe"}}, "regions[0]"},
		{Settings{Regions: []string{"eu-west-1"}, Endpoint: "localhost"}, "endpoint"},
		{Settings{Regions: []string{"eu-west-1"}, Accounts: []Account{{ID: "12345"}}}, "accounts[0].id"},
		{Settings{Regions: []string{"eu-west-1"}, Accounts: []Account{{ID: "111111111111", Role: "arn:aws:iam::222222222222:role/x"}}}, "accounts[0].role"},
		{Settings{Regions: []string{"eu-west-1"}, Accounts: []Account{{ID: "111111111111"}}, Organization: &Organization{Role: "r"}}, "set one"},
		{Settings{Regions: []string{"eu-west-1"}, Organization: &Organization{}}, "organization.role: missing"},
		{Settings{Regions: []string{"eu-west-1"}, Organization: &Organization{Role: "r", Exclude: []string{"x"}}}, "organization.exclude[0]"},
		{Settings{Regions: []string{"eu-west-1"}}, "timeout: must be a positive duration"},
		{Settings{Regions: []string{"eu-west-1"}, Timeout: 24 * time.Hour}, "timeout: 24h0m0s is longer"},
	}
	for _, tt := range tests {
		err := tt.s.Check()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %v, want an error naming %q", tt.s, err, tt.want)
		}
	}
}

func TestRoleARN(t *testing.T) {
	for _, tt := range []struct{ role, region, want string }{
		{"bfaudit-read", "eu-west-1", "arn:aws:iam::111111111111:role/bfaudit-read"},
		{"bfaudit-read", "cn-north-1", "arn:aws-cn:iam::111111111111:role/bfaudit-read"},
		{"arn:aws:iam::111111111111:role/x/y", "eu-west-1", "arn:aws:iam::111111111111:role/x/y"},
	} {
		if got := RoleARN(tt.role, "111111111111", tt.region); got != tt.want {
			t.Errorf("RoleARN(%q, %q) = %q, want %q", tt.role, tt.region, got, tt.want)
		}
	}
}

// testConfig is Load's configuration against url with static, fake
// credentials: nothing reaches AWS or instance metadata.
func testConfig(t *testing.T, url string) aws.Config {
	t.Helper()
	cfg, err := Load(context.Background(), Settings{Regions: []string{"eu-west-1"}, Endpoint: url},
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIDTEST", "canary-secret-do-not-print", "canary-session-token")))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestCallSummarisesAnAnswerAndKeepsSecretsOut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>not allowed</Message></Error><RequestId>r1</RequestId></ErrorResponse>`))
	}))
	defer srv.Close()
	client := sts.NewFromConfig(testConfig(t, srv.URL))
	_, err := Call(context.Background(), 5*time.Second, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
		return client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	})
	if err == nil || err.Error() != "STS GetCallerIdentity: AccessDenied: not allowed (HTTP 403)" {
		t.Fatalf("error = %v, want the operation, code, message and status", err)
	}
	if Code(err) != "AccessDenied" {
		t.Errorf("Code = %q", Code(err))
	}
	for _, secret := range []string{"canary-secret", "canary-session", "Signature="} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error %q holds %q", err, secret)
		}
	}
}

// An answer that is not AWS's (a proxy's HTML page echoing the request)
// is summarised to the operation and the status, and nothing it said.
func TestCallSummarisesAnAnswerThatIsNotAWSs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html><body>bad gateway: " + r.Header.Get("Authorization") + " " + r.Header.Get("X-Amz-Security-Token") + "</body></html>"))
	}))
	defer srv.Close()
	client := sts.NewFromConfig(testConfig(t, srv.URL), func(o *sts.Options) { o.RetryMaxAttempts = 1 })
	_, err := Call(context.Background(), 5*time.Second, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
		return client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	})
	if err == nil || err.Error() != "STS GetCallerIdentity: an answer that is not AWS's (the SDK could not read it) (HTTP 502)" {
		t.Fatalf("error = %v, want the operation, that the answer is not AWS's, and the status", err)
	}
	if Code(err) != "" {
		t.Errorf("Code = %q, want none", Code(err))
	}
}

// An answer announcing more than MaxAnswerBytes is refused before it is
// read, and said to be too large.
func TestCallRefusesAnAnswerOverTheCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(MaxAnswerBytes+1))
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	client := sts.NewFromConfig(testConfig(t, srv.URL), func(o *sts.Options) { o.RetryMaxAttempts = 1 })
	_, err := Call(context.Background(), 5*time.Second, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
		return client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	})
	if !remote.IsTooLarge(err) || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Fatalf("error = %v, want the answer refused as larger than the cap", err)
	}
}

func TestCallEndsAStalledAnswerAtItsTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	client := sts.NewFromConfig(testConfig(t, srv.URL))
	start := time.Now()
	_, err := Call(context.Background(), 200*time.Millisecond, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
		return client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	})
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms") {
		t.Fatalf("error = %v, want the per-call timeout named", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a stalled call took %s", took)
	}
}

func TestPagesStopsAnEndlessListing(t *testing.T) {
	n := 0
	err := Pages(context.Background(), time.Second, func() bool { return true },
		func(context.Context) (int, error) { n++; return n, nil }, func(int) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "cut short") || n != MaxPages {
		t.Fatalf("Pages = %v after %d pages, want it cut short at %d", err, n, MaxPages)
	}
}

func TestListedAccountsAreNotCalled(t *testing.T) {
	cfg := testConfig(t, "http://127.0.0.1:1") // nothing listens: a call would fail
	got, err := Accounts(context.Background(), cfg, Settings{Regions: []string{"eu-west-1"}, Accounts: []Account{
		{ID: "111111111111", Role: "bfaudit-read"}, {ID: "222222222222"}, {ID: "111111111111", Role: "other"},
	}}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Role != "arn:aws:iam::111111111111:role/bfaudit-read" || got[1].Role != "" {
		t.Fatalf("targets = %+v, want two accounts, the first through its role", got)
	}
}

// A role's credentials are renewed outside the deadline of the call that
// needs them (the SDK's credential cache): a stalled STS must still end
// within the timeout, and free its connection.
func TestAssumeRoleEndsAtItsTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	targets, err := Accounts(context.Background(), testConfig(t, srv.URL), Settings{Regions: []string{"eu-west-1"},
		Accounts: []Account{{ID: "111111111111", Role: "bfaudit-read"}}}, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = targets[0].Config.Credentials.Retrieve(context.Background())
	if err == nil {
		t.Fatal("credentials from a stalled STS")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("assuming the role through a stalled STS took %s", took)
	}
}

// A request that got no answer to read (too large, nothing listening) is
// summarised to its operation, method, address and cause.
func TestCallNamesARequestWithoutAnAnswer(t *testing.T) {
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A declared length over the cap fails at once (the hostile suites
		// stream theirs, which is read up to the cap).
		w.Header().Set("Content-Type", "text/xml")
		w.Header().Set("Content-Length", strconv.Itoa(MaxAnswerBytes+1))
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("<"))
	}))
	defer huge.Close()
	client := sts.NewFromConfig(testConfig(t, huge.URL))
	_, err := Call(context.Background(), 5*time.Second, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
		return client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	})
	want := "STS GetCallerIdentity: POST " + huge.URL + "/: answer larger than 16 MiB: not read further"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	client = sts.NewFromConfig(testConfig(t, down.URL))
	_, err = Call(context.Background(), 5*time.Second, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
		return client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	})
	if err == nil || !strings.HasPrefix(err.Error(), "STS GetCallerIdentity: POST "+down.URL+"/: ") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error = %v, want the operation, the request and the refused connection", err)
	}
}
