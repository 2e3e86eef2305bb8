package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// WaiverEntry is one waivers[i] entry; docs/rules/waivers.md documents it.
type WaiverEntry struct {
	Fingerprint string `mapstructure:"fingerprint"`
	Rule        string `mapstructure:"rule"`
	Backfill    string `mapstructure:"backfill"`
	Artifact    string `mapstructure:"artifact"`
	Owner       string `mapstructure:"owner"`
	Reason      string `mapstructure:"reason"`
	Approver    string `mapstructure:"approver"`
	// Expires is a date (2026-12-31, meaning 00:00 UTC that day) or an
	// RFC 3339 time; YAML may hand it over already parsed.
	Expires any `mapstructure:"expires"`
}

// waivers decodes and validates the waivers section. A waiver's rule must
// exist (a built-in or user rule); that is checked when the engine is
// built, with the same waivers[i] key.
func (c *Config) waivers() ([]rules.Waiver, error) {
	lines := c.sequenceLines("waivers")
	var out []rules.Waiver
	for i, raw := range c.Waivers {
		key := fmt.Sprintf("waivers[%d]", i)
		fail := func(field string, err error) error {
			k := key
			if field != "" {
				k += "." + field
			}
			return &Error{File: c.File, Line: c.lineOf(k), Key: k, Err: err}
		}
		var e WaiverEntry
		if err := collectors.DecodeInto(raw, &e); err != nil {
			return nil, fail("", err)
		}
		exp, err := waiverTime(e.Expires)
		if err != nil {
			return nil, fail("expires", err)
		}
		w := rules.Waiver{Fingerprint: e.Fingerprint, Rule: e.Rule, Backfill: e.Backfill, Artifact: e.Artifact,
			Owner: e.Owner, Reason: e.Reason, Approver: e.Approver, Expires: exp, Key: key}
		if c.File != "" {
			w.Source = model.Location{Path: c.File, Line: lines[i]}
		}
		if err := w.Validate(); err != nil {
			var fe *rules.FieldError
			if errors.As(err, &fe) {
				return nil, fail(fe.Field, fe.Err)
			}
			return nil, fail("", err)
		}
		if w.Rule != "" && !c.knownRule(w.Rule) {
			return nil, fail("rule", fmt.Errorf("unknown rule %q (`bfaudit rules list` shows them; user rules are in rules.custom)", w.Rule))
		}
		out = append(out, w)
	}
	return out, nil
}

func (c *Config) knownRule(id string) bool {
	if _, ok := rules.Lookup(id); ok {
		return true
	}
	for _, raw := range c.Rules.Custom {
		if s, _ := raw["id"].(string); strings.EqualFold(s, id) {
			return true
		}
	}
	return false
}

func waiverTime(v any) (time.Time, error) {
	switch t := v.(type) {
	case nil:
		return time.Time{}, nil
	case time.Time:
		return t.UTC(), nil
	case string:
		for _, layout := range []string{time.RFC3339, "2006-01-02"} {
			if p, err := time.Parse(layout, strings.TrimSpace(t)); err == nil {
				return p.UTC(), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("%v is not a date (2026-12-31) or RFC 3339 time", v)
}

// sequenceLines returns the line of each item of a top-level YAML list in
// the config file (as read by Load), so a waiver's findings can point at
// it. It returns an empty map when the file is not YAML: lines are a help,
// not a requirement.
func (c *Config) sequenceLines(key string) map[int]int {
	out := map[int]int{}
	root := c.yamlRoot()
	if root == nil {
		return out
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key && root.Content[i+1].Kind == yaml.SequenceNode {
			for j, item := range root.Content[i+1].Content {
				out[j] = item.Line
			}
		}
	}
	return out
}
