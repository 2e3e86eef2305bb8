package awsconf

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

func TestCheckNamesTheKey(t *testing.T) {
	ok := Settings{Regions: []string{"eu-west-1", "us-gov-west-1"}}
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

// An answer that is not AWS's (a proxy's HTML page) or is over its cap is
// summarised to the operation and what is wrong, with the status, and
// nothing of the page or of the SDK's retries.
func TestSummaryOfAnswersNotAWSs(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		want string
	}{
		{"a proxy's page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html><body>bad gateway " + r.Header.Get("X-Amz-Security-Token") + "</body></html>"))
		}, "STS GetCallerIdentity: an answer that is not the service's (HTTP 502)"},
		{"over the cap", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "999999999")
			w.WriteHeader(http.StatusOK)
		}, "STS GetCallerIdentity: answer larger than 16 MiB: not read further"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			client := sts.NewFromConfig(testConfig(t, srv.URL))
			_, err := Call(context.Background(), 5*time.Second, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
				return client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
			})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %s", err, tc.want)
			}
		})
	}
}
