package glue

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// The credentials every test signs with: static, so nothing reaches AWS
// or instance metadata, and canaries that must appear in no output.
const (
	baseKeyID    = "AKIDGLUETEST"
	canarySecret = "canary-secret-access-key-do-not-print"
	canaryToken  = "canary-session-token-do-not-print"
	mainRegion   = "eu-west-1"
	baseAccount  = smithy.CallerAccount
	roleAccount  = "222222222222"
	auditRole    = "bfaudit-read"
)

// auditTime is when the tests audit.
var auditTime = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// newOn is a collector reading the estate at url (the caller's own
// account only, in the main region, unless edit says otherwise), with
// static canary credentials and the SDK's retries on, with short waits.
func newOn(t *testing.T, url string, edit ...func(*Collector)) *Collector {
	t.Helper()
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/bfaudit-test")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/bfaudit-test")
	c := New()
	c.Regions, c.Endpoint, c.Timeout = []string{mainRegion}, url, 2*time.Second
	c.LoadOptions = testLoadOptions(canaryToken)
	for _, f := range edit {
		f(c)
	}
	if err := c.Init(collectors.Env{Source: "aws-catalog", Selector: correlate.MustSelector(), Now: func() time.Time { return auditTime }}); err != nil {
		t.Fatal(err)
	}
	return c
}

func testLoadOptions(token string) []func(*config.LoadOptions) error {
	return smithy.LoadOptions(baseKeyID, canarySecret, token)
}

// withAccounts reads the caller's account and roleAccount through its role.
func withAccounts(c *Collector) {
	c.Accounts = []accountSetting{{ID: baseAccount}, {ID: roleAccount, Role: auditRole}}
}
