package slack

import (
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/slack-go/slack"
)

// Defaults.
const (
	DefaultTokenEnv  = "SLACK_BOT_TOKEN"
	DefaultMaxOldest = 10
	DefaultTimeout   = remote.DefaultCallTimeout
)

// Config is the `slack` section of the config file.
type Config struct {
	// Channel is where the digest goes (a name like #platform-leads or an
	// id like C0123). Required with a bot token; an incoming webhook posts
	// to its own channel.
	Channel string `mapstructure:"channel"`
	// TokenEnv names the environment variable holding the bot token
	// (default SLACK_BOT_TOKEN). Needs chat:write, and users:read.email for
	// owner messages.
	TokenEnv string `mapstructure:"token_env"`
	// WebhookURLEnv names the environment variable holding an incoming
	// webhook URL, used when no bot token is set.
	WebhookURLEnv string `mapstructure:"webhook_url_env"`
	// Period is how often a digest is posted: weekly (default), daily or
	// every run.
	Period string `mapstructure:"period"`
	// OwnerMessages sends each owner a direct message with their items
	// (bot token only); owners Slack does not know are listed in the
	// digest's thread instead.
	OwnerMessages bool `mapstructure:"owner_messages"`
	// MaxOldest is how many of the oldest lingering items the digest lists.
	MaxOldest int `mapstructure:"max_oldest"`
	// DryRun prints the exact payloads and posts nothing.
	DryRun bool `mapstructure:"dry_run"`
	// Force posts the digest even when this period's was already posted.
	// Owners' messages keep their own once-per-period rule.
	Force bool `mapstructure:"force"`
	// APIURL overrides Slack's Web API base URL (tests, proxies), with or
	// without its /api/ path.
	APIURL string `mapstructure:"api_url"`
	// Timeout bounds each call to Slack (default 30s); nil means the
	// default, zero or negative is an error.
	Timeout *time.Duration `mapstructure:"timeout"`
}

// WithDefaults fills unset fields.
func (c Config) WithDefaults() Config {
	if c.TokenEnv == "" {
		c.TokenEnv = DefaultTokenEnv
	}
	if c.Period == "" {
		c.Period = PeriodWeekly
	}
	if c.MaxOldest == 0 {
		c.MaxOldest = DefaultMaxOldest
	}
	if c.Timeout == nil {
		c.Timeout = new(DefaultTimeout)
	}
	return c
}

// Validate checks the section after defaults; errors name the key.
func (c Config) Validate() error {
	c = c.WithDefaults()
	switch c.Period {
	case PeriodWeekly, PeriodDaily, PeriodEvery:
	default:
		return fmt.Errorf("slack.period: unknown period %q (want weekly, daily or every)", c.Period)
	}
	if c.MaxOldest < 0 || c.MaxOldest > 100 {
		return fmt.Errorf("slack.max_oldest: %d is out of range (want 1 to 100)", c.MaxOldest)
	}
	if strings.TrimSpace(c.Channel) == "" && c.WebhookURLEnv == "" {
		return fmt.Errorf("slack.channel: required (or set slack.webhook_url_env to post through an incoming webhook)")
	}
	if c.APIURL != "" {
		if _, err := remote.ParseAddress("slack.api_url", c.APIURL); err != nil {
			return err
		}
	}
	return remote.CheckTimeout("slack.timeout", *c.Timeout)
}

// apiBase is the Web API base URL for api_url: Slack's when unset, and
// with /api/ added when the URL does not end in it, so
// "https://slack.com" and "https://slack.com/api/" both work.
func apiBase(apiURL string) string {
	if apiURL == "" {
		return slack.APIURL
	}
	u := strings.TrimRight(apiURL, "/")
	if !strings.HasSuffix(u, "/api") {
		u += "/api"
	}
	return u + "/"
}
