package config

import (
	"fmt"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// CustomRule is a user rule in config (rules.custom[i]); docs/rules/cel.md
// documents the variables its expression sees.
type CustomRule struct {
	ID          string `mapstructure:"id"`
	Name        string `mapstructure:"name"`
	Title       string `mapstructure:"title"`
	Rationale   string `mapstructure:"rationale"`
	Severity    string `mapstructure:"severity"`
	Remediation string `mapstructure:"remediation"`
	Expr        string `mapstructure:"expr"`
	// AppliesTo is artifact (once per artifact) or backfill (once per backfill).
	AppliesTo string `mapstructure:"applies_to"`
}

// ruleOptions validates the rules section, compiles the user rules once
// and reads the waivers. Errors name the file and the key.
func (c *Config) ruleOptions() (rules.Options, error) {
	fail := func(key string, err error) error {
		return &Error{File: c.File, Line: c.lineOf(key), Key: key, Err: err}
	}
	opts := rules.Options{Params: c.Rules.Params, Disabled: c.Rules.Disabled, Severity: map[string]model.Severity{}}
	for id, s := range c.Rules.Severity {
		sv, err := model.ParseSeverity(s)
		if err != nil {
			return opts, fail("rules.severity."+id, err)
		}
		opts.Severity[id] = sv
	}
	var specs []rules.UserRuleSpec
	for i, raw := range c.Rules.Custom {
		var cr CustomRule
		key := fmt.Sprintf("rules.custom[%d]", i)
		if err := collectors.DecodeInto(raw, &cr); err != nil {
			return opts, fail(key, err)
		}
		spec := rules.UserRuleSpec{ID: cr.ID, Name: cr.Name, Title: cr.Title, Rationale: cr.Rationale,
			Remediation: cr.Remediation, Expr: cr.Expr, AppliesTo: cr.AppliesTo}
		if cr.Severity != "" {
			sv, err := model.ParseSeverity(cr.Severity)
			if err != nil {
				if cr.ID != "" {
					key += " (" + cr.ID + ")"
				}
				return opts, fail(key+".severity", err)
			}
			spec.Severity = sv
		}
		specs = append(specs, spec)
	}
	user, err := rules.CompileUserRules(specs)
	if err != nil {
		if se, ok := err.(*rules.SpecError); ok {
			return opts, fail(se.Key, se.Err)
		}
		return opts, &Error{File: c.File, Err: err}
	}
	opts.User = user
	waivers, err := c.waivers()
	if err != nil {
		return opts, err
	}
	opts.Waivers = waivers
	return opts, nil
}
