package github

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
)

// Defaults.
const (
	DefaultLabel         = "bfaudit"
	DefaultWaiverLabel   = "bfaudit:accepted"
	DefaultTokenEnv      = "GITHUB_TOKEN"
	DefaultRateLimitWait = 5 * time.Minute
	DefaultWriteInterval = time.Second
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
	// summed; past it the run stops and reports itself incomplete.
	RateLimitWait time.Duration `mapstructure:"rate_limit_wait"`
	// WriteInterval spaces write calls, as GitHub asks of integrations that
	// make many of them, to stay clear of secondary rate limits.
	WriteInterval time.Duration `mapstructure:"write_interval"`
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
	if c.RateLimitWait == 0 {
		c.RateLimitWait = DefaultRateLimitWait
	}
	if c.WriteInterval == 0 {
		c.WriteInterval = DefaultWriteInterval
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
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, fmt.Errorf("github.base_url: %q is not an http(s) URL", redact(c.BaseURL)))
		} else if u.User != nil {
			errs = append(errs, errors.New("github.base_url: must not carry credentials; use github.token_env"))
		}
	}
	if c.RateLimitWait < 0 {
		errs = append(errs, fmt.Errorf("github.rate_limit_wait: %s is negative", c.RateLimitWait))
	}
	if c.WriteInterval < 0 {
		errs = append(errs, fmt.Errorf("github.write_interval: %s is negative", c.WriteInterval))
	}
	return errors.Join(errs...)
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
	return fmt.Sprintf("github{repo=%s label=%s waiver_label=%s base_url=%s token=%s token_env=%s rate_limit_wait=%s write_interval=%s dry_run=%t}",
		c.Repo, c.Label, c.WaiverLabel, redact(c.BaseURL), tok, c.TokenEnv, c.RateLimitWait, c.WriteInterval, c.DryRun)
}

// GoString keeps %#v from printing the token too.
func (c Config) GoString() string { return c.String() }

// redact drops user info and query from a URL string.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	return u.String()
}
