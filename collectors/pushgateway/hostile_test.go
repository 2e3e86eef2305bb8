package pushgateway

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// The gateway is the collector's one unit, so the whole-server suite is
// its hostile suite (HostileUnit is for a unit beside others): each
// misbehaving server fails the source within its bounds, saying why, and
// the password is in no text.
func TestHostileWholeServer(t *testing.T) {
	collectortest.HostileWholeServer(t, func(t *testing.T, url string) collectors.Collector {
		t.Setenv("TEST_PGW_PASSWORD", hostile.Canary)
		p := New()
		p.URL, p.Username, p.PasswordEnv, p.Timeout = url, "bfaudit", "TEST_PGW_PASSWORD", time.Second
		p.Retry.Base = 10 * time.Millisecond
		if err := p.Init(env("pg")); err != nil {
			t.Fatal(err)
		}
		return p
	})
}
