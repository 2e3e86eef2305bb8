package config

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/github"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/reports/metrics"
	"github.com/bfaudit/bfaudit/reports/slack"
)

// Sinks are the optional sections for remembering and reporting to the
// world; a section left out of the file is off (`history: {}` turns the
// history store on with its defaults).
type Sinks struct {
	GitHub  *github.Config  `mapstructure:"github"`
	Slack   *slack.Config   `mapstructure:"slack"`
	History *history.Config `mapstructure:"history"`
	// Metrics pushes the run's metrics to a Pushgateway (metrics.pushgateway).
	Metrics *metrics.Config `mapstructure:"metrics"`
}

// validate checks the sections; base is the config file's directory, which
// a relative SQLite path and relative template paths are resolved against
// (so a cron job run from any directory finds the same history and
// templates). The GitHub templates are parsed here, before any sink acts.
func (s *Sinks) validate(base string, owners model.Owners) error {
	var errs []error
	if s.GitHub != nil {
		if err := s.GitHub.Validate(); err != nil {
			errs = append(errs, err)
		} else {
			errs = append(errs, checkGitHubTemplates(s.GitHub, base, owners))
		}
	}
	if s.History != nil {
		h := s.History.WithDefaults()
		if h.Driver == history.DriverSQLite && base != "" && !filepath.IsAbs(h.Path) {
			h.Path = filepath.Join(base, h.Path)
		}
		s.History = &h
		errs = append(errs, s.History.Validate())
	}
	if s.Slack != nil {
		sc := s.Slack.WithDefaults()
		s.Slack = &sc
		errs = append(errs, s.Slack.Validate())
		if s.History == nil && sc.Period != slack.PeriodEvery {
			errs = append(errs, fmt.Errorf("slack.period: %s digests need the history store to post once per period; add a history: section or set period: every", sc.Period))
		}
	}
	if s.Metrics != nil {
		errs = append(errs, s.Metrics.Validate())
	}
	return errors.Join(errs...)
}
