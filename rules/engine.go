package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Options are the rule settings from config.
type Options struct {
	// Params by rule id, then param name.
	Params map[string]map[string]string
	// Severity overrides by rule id.
	Severity map[string]model.Severity
	// Disabled rule ids.
	Disabled []string
	// Only restricts evaluation to these rule ids (plan check: governance).
	Only func(*Rule) bool
}

// Engine evaluates the enabled rules with their settings.
type Engine struct {
	rules    []*Rule
	params   map[string]map[string]string
	severity map[string]model.Severity
}

// New checks the options against the registered rules and builds an
// engine. Errors name the rule and the parameter that is wrong.
func New(opts Options) (*Engine, error) {
	e := &Engine{params: map[string]map[string]string{}, severity: map[string]model.Severity{}}
	disabled := map[string]bool{}
	for _, id := range opts.Disabled {
		r, ok := Lookup(id)
		if !ok {
			return nil, fmt.Errorf("rules.disabled: unknown rule %q", id)
		}
		disabled[r.ID] = true
	}
	for id, sev := range opts.Severity {
		r, ok := Lookup(id)
		if !ok {
			return nil, fmt.Errorf("rules.severity.%s: unknown rule", id)
		}
		if !sev.IsValid() {
			return nil, fmt.Errorf("rules.severity.%s: invalid severity", id)
		}
		e.severity[r.ID] = sev
	}
	for id, ps := range opts.Params {
		r, ok := Lookup(id)
		if !ok {
			return nil, fmt.Errorf("rules.params.%s: unknown rule", id)
		}
		clean := map[string]string{}
		for name, v := range ps {
			p := r.param(name)
			if p == nil {
				return nil, fmt.Errorf("rules.params.%s.%s: unknown parameter (rule %s has %s)", id, name, r.ID, r.paramNames())
			}
			if err := checkParam(*p, v); err != nil {
				return nil, fmt.Errorf("rules.params.%s.%s: %v", id, name, err)
			}
			clean[p.Name] = v
		}
		e.params[r.ID] = clean
	}
	for _, r := range All() {
		if disabled[r.ID] || (opts.Only != nil && !opts.Only(r)) {
			continue
		}
		e.rules = append(e.rules, r)
	}
	return e, nil
}

// Rules returns the rules the engine runs.
func (e *Engine) Rules() []*Rule { return e.rules }

// SeverityOf returns a rule's effective base severity.
func (e *Engine) SeverityOf(r *Rule) model.Severity {
	if s, ok := e.severity[r.ID]; ok {
		return s
	}
	return r.Severity
}

// Evaluate runs every enabled rule over the index and returns the findings
// in report order: most severe first, then by backfill, rule and artifact.
// A finding reported twice (same fingerprint) is kept once.
func (e *Engine) Evaluate(ix *correlate.Index, now time.Time) []model.Finding {
	var out []model.Finding
	for _, r := range e.rules {
		ctx := &Context{Index: ix, Now: now, rule: r, params: e.params[r.ID], severity: e.SeverityOf(r), out: &out}
		r.Check(ctx)
	}
	seen := make(map[string]bool, len(out))
	uniq := out[:0]
	for _, f := range out {
		if seen[f.Fingerprint] {
			continue
		}
		seen[f.Fingerprint] = true
		uniq = append(uniq, f)
	}
	SortFindings(uniq)
	return uniq
}

// SortFindings orders findings for reports.
func SortFindings(fs []model.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.BackfillID != b.BackfillID {
			return a.BackfillID < b.BackfillID
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		return a.ArtifactURI < b.ArtifactURI
	})
}

func (r *Rule) param(name string) *Param {
	for i := range r.Params {
		if strings.EqualFold(r.Params[i].Name, name) {
			return &r.Params[i]
		}
	}
	return nil
}

func (r *Rule) paramNames() string {
	if len(r.Params) == 0 {
		return "no parameters"
	}
	var names []string
	for _, p := range r.Params {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// checkParam validates a configured value against the kind of the default.
func checkParam(p Param, v string) error {
	if _, err := strconv.Atoi(p.Default); err == nil {
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return fmt.Errorf("expected a whole number >= 0, got %q", v)
		}
		return nil
	}
	if _, err := collectors.ParseDuration(p.Default); err == nil {
		if d, err := collectors.ParseDuration(v); err != nil || d < 0 {
			return fmt.Errorf("expected a duration such as 72h or 14d, got %q", v)
		}
	}
	return nil
}
