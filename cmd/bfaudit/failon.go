package main

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/model"
)

// failOnUsage is --fail-on's help, the same on every command.
const failOnUsage = "exit 1 when a finding shown is at or above this `SEVERITY` (critical, high, medium, low, info), " +
	"or never; default report.fail_on in the config, high"

// failOn is the --fail-on threshold: findings at or above min fail the
// run (exit 1), unless never. Waived findings never count. It judges
// findings only: a source that did not answer still exits 3.
type failOn struct {
	min   model.Severity
	never bool
}

// resolveFailOn reads --fail-on, else the config's report.fail_on (when a
// config was loaded), else high: audit, fix and plan check share it.
func resolveFailOn(flag string, cfg *config.Config) (failOn, error) {
	if strings.EqualFold(strings.TrimSpace(flag), "never") {
		return failOn{never: true}, nil
	}
	if flag != "" {
		sev, err := model.ParseSeverity(flag)
		if err != nil {
			return failOn{}, usageError(fmt.Errorf("--fail-on: %w, or never", err))
		}
		return failOn{min: sev}, nil
	}
	if cfg != nil {
		if strings.EqualFold(strings.TrimSpace(cfg.Report.FailOn), "never") {
			return failOn{never: true}, nil
		}
		return failOn{min: cfg.FailOn}, nil
	}
	return failOn{min: model.SeverityHigh}, nil
}

// failing reports whether an unwaived finding is at or above the threshold.
func (f failOn) failing(findings []model.Finding) bool {
	if f.never {
		return false
	}
	for _, x := range findings {
		if !x.Waived() && x.Severity >= f.min {
			return true
		}
	}
	return false
}
