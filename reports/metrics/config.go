package metrics

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

// Config is the `metrics` section of the config file.
type Config struct {
	// Pushgateway, when set, receives the metrics after each run.
	Pushgateway *PushgatewayConfig `mapstructure:"pushgateway"`
}

// PushgatewayConfig is where and how to push: the connection keys every
// HTTP API client takes (url, username/password_env or token_env, TLS,
// timeout) and the job the metrics are grouped under.
type PushgatewayConfig struct {
	apiclient.Config `mapstructure:",squash"`
	// Job is the grouping key's job label: a push replaces what the
	// previous push of that job left (default bfaudit). Give each audit
	// its own job when several push to one Pushgateway.
	Job string `mapstructure:"job"`
}

// DefaultJob is the job pushed under unless `job` says otherwise.
const DefaultJob = "bfaudit"

// jobName is what a job may be written as in the push path without
// encoding: one path segment, nothing a proxy would rewrite.
var jobName = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)

// WithDefaults fills unset fields.
func (c PushgatewayConfig) WithDefaults() PushgatewayConfig {
	if c.Job == "" {
		c.Job = DefaultJob
	}
	if c.Timeout == 0 {
		c.Timeout = remote.DefaultCallTimeout
	}
	return c
}

// Validate checks the section; errors name the key.
func (c Config) Validate() error {
	if c.Pushgateway == nil {
		return nil
	}
	p := c.Pushgateway.WithDefaults()
	var errs []error
	if p.URL == "" {
		errs = append(errs, errors.New("metrics.pushgateway.url: missing; the Pushgateway's address, such as http://pushgateway:9091"))
	} else if _, err := apiclient.New(withoutLogin(p.Config), nil, remote.RetryPolicy{}); err != nil {
		errs = append(errs, fmt.Errorf("metrics.pushgateway.%w", err))
	}
	if !jobName.MatchString(p.Job) {
		errs = append(errs, fmt.Errorf("metrics.pushgateway.job: %q: use letters, digits and _ . : - only", p.Job))
	}
	return errors.Join(errs...)
}

// withoutLogin is cfg without its login: loading the config checks the
// address, TLS and timeout, and leaves reading the token's variable to
// the push, so `config validate` runs where the secret is not set.
func withoutLogin(cfg apiclient.Config) apiclient.Config {
	cfg.Username, cfg.PasswordEnv, cfg.TokenEnv, cfg.AuthScheme = "", "", "", ""
	return cfg
}
