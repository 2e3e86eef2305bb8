package github

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/duration"
	"github.com/bfaudit/bfaudit/internal/ghname"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

// Defaults.
const (
	DefaultLabel         = "bfaudit"
	DefaultWaiverLabel   = "bfaudit:accepted"
	DefaultTokenEnv      = "GITHUB_TOKEN"
	DefaultRateLimitWait = 5 * time.Minute
	DefaultWriteInterval = time.Second
	// DefaultAcceptDays is how long an acceptance by label lasts.
	DefaultAcceptDays = 90
	// DefaultAcceptMaxSeverity is the most severe finding a label may
	// accept: a critical one needs a config waiver, reviewed like code.
	DefaultAcceptMaxSeverity = "high"
)

// Config is the `github` section of the bfaudit config.
type Config struct {
	// Repo is "owner/name" of the repository the issues live in.
	Repo string `mapstructure:"repo"`
	// Label marks the issues bfaudit owns; they are found again by it.
	Label string `mapstructure:"label"`
	// WaiverLabel on an issue a person closed accepts its findings.
	WaiverLabel string `mapstructure:"waiver_label"`
	// BaseURL is a GitHub Enterprise Server URL (https://ghe.example.com);
	// empty means github.com.
	BaseURL string `mapstructure:"base_url"`
	// Token is discouraged (it ends up in config files); prefer TokenEnv.
	Token string `mapstructure:"token"`
	// TokenEnv names the environment variable holding the token.
	TokenEnv string `mapstructure:"token_env"`
	// RateLimitWait bounds the time one run spends waiting out rate limits,
	// summed; past it the run stops and reports itself incomplete. Nil
	// means the default; 0 means never wait. A pointer, so that a 0 in the
	// file is told apart from a key left out.
	RateLimitWait *time.Duration `mapstructure:"rate_limit_wait"`
	// WriteInterval spaces write calls, as GitHub asks of integrations that
	// make many of them, to stay clear of secondary rate limits. Nil means
	// the default; 0 means no pause (a GitHub Enterprise with its own
	// limits).
	WriteInterval *time.Duration `mapstructure:"write_interval"`
	// AcceptDays is how long findings accepted by closing their issue with
	// WaiverLabel stay accepted, counted from when the label was applied.
	// Nil means the default; it must be at least 1: like a config waiver,
	// an acceptance always ends.
	AcceptDays *int `mapstructure:"accept_days"`
	// AcceptFrom restricts who may accept by label: GitHub logins, or
	// teams as "org/team-slug". Empty means anyone who can label issues.
	AcceptFrom []string `mapstructure:"accept_from"`
	// AcceptMaxSeverity is the most severe finding a label may accept
	// (default high); more severe ones need a config waiver.
	AcceptMaxSeverity string `mapstructure:"accept_max_severity"`
	// TitleTemplate and BodyTemplate name the embedded templates, or a file
	// on disk as "@path".
	TitleTemplate string `mapstructure:"title_template"`
	BodyTemplate  string `mapstructure:"body_template"`
	// DryRun prints every write the run would make and makes none.
	DryRun bool `mapstructure:"dry_run"`
}

var repoPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

// Validate fills defaults for keys left empty and checks the rest; errors
// name the key and what was expected.
func (c *Config) Validate() error {
	if c.Label == "" {
		c.Label = DefaultLabel
	}
	if c.WaiverLabel == "" {
		c.WaiverLabel = DefaultWaiverLabel
	}
	if c.TokenEnv == "" {
		c.TokenEnv = DefaultTokenEnv
	}
	if c.RateLimitWait == nil {
		c.RateLimitWait = durationPtr(DefaultRateLimitWait)
	}
	if c.WriteInterval == nil {
		c.WriteInterval = durationPtr(DefaultWriteInterval)
	}
	if c.AcceptDays == nil {
		days := DefaultAcceptDays
		c.AcceptDays = &days
	}
	if c.AcceptMaxSeverity == "" {
		c.AcceptMaxSeverity = DefaultAcceptMaxSeverity
	}
	if c.TitleTemplate == "" {
		c.TitleTemplate = DefaultTitleTemplate
	}
	if c.BodyTemplate == "" {
		c.BodyTemplate = DefaultBodyTemplate
	}
	var errs []error
	if !repoPattern.MatchString(c.Repo) {
		errs = append(errs, fmt.Errorf("github.repo: %q is not \"owner/name\"", c.Repo))
	}
	if strings.EqualFold(c.Label, c.WaiverLabel) {
		errs = append(errs, fmt.Errorf("github.waiver_label: must differ from github.label (%q)", c.Label))
	}
	if c.BaseURL != "" {
		u, err := remote.ParseAddress("github.base_url", c.BaseURL)
		if err != nil {
			errs = append(errs, err)
		} else if u.User != nil {
			errs = append(errs, errors.New("github.base_url: must not carry credentials; use github.token_env"))
		}
	}
	if *c.RateLimitWait < 0 {
		errs = append(errs, fmt.Errorf("github.rate_limit_wait: %s is negative; give 0 to never wait, or a duration such as 5m", *c.RateLimitWait))
	}
	if *c.WriteInterval < 0 {
		errs = append(errs, fmt.Errorf("github.write_interval: %s is negative; give 0 for no pause, or a duration such as 1s", *c.WriteInterval))
	}
	if *c.AcceptDays < 1 || *c.AcceptDays > duration.MaxDurationDays {
		errs = append(errs, fmt.Errorf("github.accept_days: %d: give a number of days from 1 to %d (acceptances always expire, like config waivers; default %d)",
			*c.AcceptDays, duration.MaxDurationDays, DefaultAcceptDays))
	}
	if _, err := model.ParseSeverity(c.AcceptMaxSeverity); err != nil {
		errs = append(errs, fmt.Errorf("github.accept_max_severity: %w", err))
	}
	for i, who := range c.AcceptFrom {
		if !ghname.IsLogin(who) && !ghname.IsTeam(who) {
			errs = append(errs, fmt.Errorf("github.accept_from[%d]: %q is neither a GitHub login nor a team as \"org/team-slug\"", i, who))
		}
	}
	return errors.Join(errs...)
}

func durationPtr(d time.Duration) *time.Duration { return &d }

// rateLimitWait, writeInterval, acceptDays and maxSeverity read the
// settings with their defaults, so a Config that was never validated
// still behaves.
func (c *Config) rateLimitWait() time.Duration {
	if c.RateLimitWait == nil {
		return DefaultRateLimitWait
	}
	return *c.RateLimitWait
}

func (c *Config) writeInterval() time.Duration {
	if c.WriteInterval == nil {
		return DefaultWriteInterval
	}
	return *c.WriteInterval
}

func (c *Config) acceptDays() int {
	if c.AcceptDays == nil {
		return DefaultAcceptDays
	}
	return *c.AcceptDays
}

func (c *Config) maxSeverity() model.Severity {
	s, err := model.ParseSeverity(c.AcceptMaxSeverity)
	if err != nil {
		s, _ = model.ParseSeverity(DefaultAcceptMaxSeverity)
	}
	return s
}

// owner and name split Repo; Validate has checked its shape.
func (c *Config) owner() string { o, _, _ := strings.Cut(c.Repo, "/"); return o }
func (c *Config) name() string  { _, n, _ := strings.Cut(c.Repo, "/"); return n }

// token returns the token from config or the environment; "" when none.
func (c *Config) token(getenv func(string) string) string {
	if c.Token != "" {
		return c.Token
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return strings.TrimSpace(getenv(c.TokenEnv))
}

// String prints the config with the token hidden, so that logging it by
// mistake leaks nothing.
func (c Config) String() string {
	tok := "unset"
	if c.Token != "" {
		tok = "set (hidden)"
	}
	return fmt.Sprintf("github{repo=%s label=%s waiver_label=%s base_url=%s token=%s token_env=%s rate_limit_wait=%s write_interval=%s accept_days=%d accept_from=%v accept_max_severity=%s dry_run=%t}",
		c.Repo, c.Label, c.WaiverLabel, redact.URL(c.BaseURL), tok, c.TokenEnv, c.rateLimitWait(), c.writeInterval(),
		c.acceptDays(), c.AcceptFrom, c.AcceptMaxSeverity, c.DryRun)
}

// GoString keeps %#v from printing the token too.
func (c Config) GoString() string { return c.String() }
