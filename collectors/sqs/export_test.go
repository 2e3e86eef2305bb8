package sqs

import (
	"net/http"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// newOn is a collector reading the estate at url as the caller's own
// account (base), in the main region, with static canary credentials:
// nothing reaches AWS or instance metadata. The SDK's retries stay on,
// with short waits. edit changes the settings before Init.
func newOn(t *testing.T, url string, edit ...func(*Collector)) *Collector {
	t.Helper()
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/bfaudit-test")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/bfaudit-test")
	c := New()
	c.Regions, c.Endpoint, c.Timeout = []string{mainRegion}, url, 5*time.Second
	c.LoadOptions = smithy.LoadOptions(baseKeyID, canarySecret, canaryToken)
	for _, f := range edit {
		f(c)
	}
	if err := c.Init(collectors.Env{Source: "aws-queues", Selector: correlate.MustSelector(), Now: func() time.Time { return auditTime }}); err != nil {
		t.Fatal(err)
	}
	return c
}

// auditTime is when the tests audit.
var auditTime = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

type accountSetting = awsconf.Account

func httpStatus(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
}
