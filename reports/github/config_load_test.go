package github_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/config"
)

// What a user writes in the config file reaches the sink as written: a 0
// is zero (a GitHub Enterprise with its own limits runs without pauses),
// a key left out takes its default, and a negative value or an
// acceptance that never ends is refused with the key named.
func TestGitHubSettingsFromTheConfigFile(t *testing.T) {
	load := func(t *testing.T, keys string) (*config.Config, error) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "bfaudit.yaml")
		if err := os.WriteFile(path, []byte("github:\n  repo: acme/cleanup\n  dry_run: true\n"+keys), 0o600); err != nil {
			t.Fatal(err)
		}
		return config.Load(config.NewViper(), path)
	}
	t.Run("zero means zero", func(t *testing.T) {
		c, err := load(t, "  write_interval: 0\n  rate_limit_wait: 0s\n")
		if err != nil {
			t.Fatal(err)
		}
		if g := c.GitHub; *g.WriteInterval != 0 || *g.RateLimitWait != 0 {
			t.Errorf("write_interval %s, rate_limit_wait %s; want 0 and 0", *g.WriteInterval, *g.RateLimitWait)
		}
	})
	t.Run("left out means the defaults", func(t *testing.T) {
		c, err := load(t, "")
		if err != nil {
			t.Fatal(err)
		}
		if g := c.GitHub; *g.WriteInterval != time.Second || *g.RateLimitWait != 5*time.Minute || *g.AcceptDays != 90 || g.AcceptMaxSeverity != "high" {
			t.Errorf("defaults: %v", g)
		}
	})
	t.Run("acceptance settings", func(t *testing.T) {
		c, err := load(t, "  accept_days: 30\n  accept_from: [alice, acme/platform-leads]\n  accept_max_severity: medium\n")
		if err != nil {
			t.Fatal(err)
		}
		if g := c.GitHub; *g.AcceptDays != 30 || strings.Join(g.AcceptFrom, ",") != "alice,acme/platform-leads" || g.AcceptMaxSeverity != "medium" {
			t.Errorf("accept settings: %v", g)
		}
	})
	for _, tc := range []struct{ keys, want string }{
		{"  write_interval: -1s\n", "github.write_interval"},
		{"  rate_limit_wait: -5m\n", "github.rate_limit_wait"},
		{"  accept_days: 0\n", "github.accept_days"},
		{"  accept_max_severity: severe\n", "github.accept_max_severity"},
	} {
		t.Run("refused "+strings.TrimSpace(tc.keys), func(t *testing.T) {
			_, err := load(t, tc.keys)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bfaudit.yaml") {
				t.Errorf("err = %v, want the file and %s named", err, tc.want)
			}
		})
	}
}
