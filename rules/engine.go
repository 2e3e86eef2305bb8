package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/duration"
	"github.com/bfaudit/bfaudit/model"
)

// Options are the rule settings from config.
type Options struct {
	// Params by rule id, then param name.
	Params map[string]map[string]string
	// Severity overrides by rule id (built-in or user rule).
	Severity map[string]model.Severity
	// Disabled rule ids (built-in or user rule).
	Disabled []string
	// Only restricts evaluation to these rule ids (plan check: governance).
	// A run restricted this way reports no stale waiver for a rule it did
	// not run.
	Only func(*Rule) bool
	// User are the compiled user rules (CompileUserRules).
	User []*Rule
	// Waivers accept findings for a while (see Waiver).
	Waivers []Waiver
	// KeyLines, when set, lets governance findings point at the line of the
	// offending key in a plan file.
	KeyLines KeyLines
}

// Engine evaluates the enabled rules with their settings.
type Engine struct {
	rules    []*Rule // built-in rules that run, sorted by id
	user     []*Rule // user rules that run, in config order
	skipped  map[string]string
	params   map[string]map[string]string
	severity map[string]model.Severity
	waivers  []Waiver
	keyLines KeyLines
	partial  bool // Only was set: not every rule runs
	prec     precedence
}

// New checks the options against the registered rules and builds an
// engine. Errors name the rule and the parameter that is wrong.
func New(opts Options) (*Engine, error) {
	e := &Engine{params: map[string]map[string]string{}, severity: map[string]model.Severity{},
		skipped: map[string]string{}, keyLines: opts.KeyLines, partial: opts.Only != nil}
	user := map[string]*Rule{}
	for _, r := range opts.User {
		if _, clash := Lookup(r.ID); clash {
			return nil, fmt.Errorf("rules.custom: id %s is a built-in rule's; give user rules their own ids", r.ID)
		}
		if user[strings.ToUpper(r.ID)] != nil {
			return nil, fmt.Errorf("rules.custom: id %s is used twice", r.ID)
		}
		user[strings.ToUpper(r.ID)] = r
	}
	find := func(id string) (*Rule, bool) {
		if r, ok := Lookup(id); ok {
			return r, true
		}
		r, ok := user[strings.ToUpper(id)]
		return r, ok
	}
	disabled := map[string]bool{}
	for _, id := range opts.Disabled {
		r, ok := find(id)
		if !ok {
			return nil, fmt.Errorf("rules.disabled: unknown rule %q", id)
		}
		disabled[r.ID] = true
	}
	for id, sev := range opts.Severity {
		r, ok := find(id)
		if !ok {
			return nil, fmt.Errorf("rules.severity.%s: unknown rule", id)
		}
		if !sev.IsValid() {
			return nil, fmt.Errorf("rules.severity.%s: invalid severity", id)
		}
		e.severity[r.ID] = sev
	}
	for id, ps := range opts.Params {
		r, ok := find(id)
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
	keep := func(r *Rule) bool {
		switch {
		case disabled[r.ID]:
			e.skipped[r.ID] = "disabled in config"
		case opts.Only != nil && !opts.Only(r) && !r.meta:
			e.skipped[r.ID] = "not run by this command"
		default:
			return true
		}
		return false
	}
	for _, r := range All() {
		if keep(r) {
			e.rules = append(e.rules, r)
		}
	}
	for _, r := range opts.User {
		if keep(r) {
			e.user = append(e.user, r)
		}
	}
	e.prec = newPrecedence(e.rules)
	for i, w := range opts.Waivers {
		if err := w.compile(); err != nil {
			return nil, fmt.Errorf("waivers[%d]: %v", i, err)
		}
		if w.Rule != "" {
			r, ok := find(w.Rule)
			if !ok {
				return nil, fmt.Errorf("waivers[%d].rule: unknown rule %q", i, w.Rule)
			}
			w.Rule = r.ID
		}
		e.waivers = append(e.waivers, w)
	}
	return e, nil
}

// Rules returns the rules the engine runs: built-in rules by id, then user rules.
func (e *Engine) Rules() []*Rule { return append(append([]*Rule(nil), e.rules...), e.user...) }

// SeverityOf returns a rule's effective base severity.
func (e *Engine) SeverityOf(r *Rule) model.Severity {
	if s, ok := e.severity[r.ID]; ok {
		return s
	}
	return r.Severity
}

// Evaluate runs every enabled rule over the index, applies the waivers and
// returns the findings in report order: most severe first, then by
// backfill, rule and artifact. A finding reported twice (same fingerprint)
// is kept once, and a finding of a rule that another rule's finding on the
// same artifact supersedes is folded into it (Rule.Supersedes), before
// waivers apply: a waiver of the surviving finding covers the problem.
// Every built-in rule walks only the artifacts of its kinds, from an index
// by kind built once (kinds.go), and the user rules share one pass over
// the artifacts and one over the backfills, so the cost is linear in the
// estate.
//
// Every rule reports into blocks that are never moved (the failures of
// user rules into a slice of their own, after them); duplicates and
// superseded findings are settled there, and the findings that stay are
// then moved once into one slice of the exact size, with room for the
// waiver findings, and sorted in place. (One slice shared by every rule,
// grown by append, used to copy each finding about five times and to hold
// up to twice the memory it needed.)
func (e *Engine) Evaluate(ix *correlate.Index, now time.Time) []model.Finding {
	found := findingBlocks{foldable: e.prec}
	byKind := newKindIndex(ix)
	for _, r := range e.rules {
		if r.meta {
			continue
		}
		c := e.context(ix, now, r, nil)
		c.blocks, c.byKind = &found, byKind
		r.Check(c)
	}
	var user []model.Finding
	e.evaluateUser(ix, now, &found, &user)
	found.forgetTexts()
	if found.n >= releaseFrom {
		// The rules' garbage is collected before the precedence makes
		// its own (the set of fingerprints, the folds' lines and lists):
		// otherwise the two together are the run's peak, 7 MB above it
		// for the bench estate, for one collection (bench/README.md).
		release()
	}
	dead, live, user := found.settle(e.prec, user)
	found.close(dead)
	out := make([]model.Finding, 0, live+len(user)+len(e.waivers))
	found.drain(func(f *model.Finding) { out = append(out, *f) })
	out = append(out, user...)
	out = e.applyWaivers(ix, out, now)
	SortFindings(out)
	return out
}

func (e *Engine) context(ix *correlate.Index, now time.Time, r *Rule, out *[]model.Finding) *Context {
	return &Context{Index: ix, Now: now, rule: r, params: e.params[r.ID], severity: e.SeverityOf(r), out: out, keyLines: e.keyLines}
}

// running returns the enabled rule with this id, or nil.
func (e *Engine) running(id string) *Rule {
	for _, r := range e.rules {
		if r.ID == id {
			return r
		}
	}
	for _, r := range e.user {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// SortFindings orders findings for reports: most severe first, then by
// backfill, rule and artifact. It sorts indexes, then moves each finding
// once into its place, without a second slice: findings are large structs
// and estates can raise millions.
func SortFindings(fs []model.Finding) {
	idx := make([]int32, len(fs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(i, j int32) int {
		a, b := &fs[i], &fs[j]
		if a.Severity != b.Severity {
			return cmp.Compare(b.Severity, a.Severity)
		}
		if c := cmp.Compare(a.BackfillID, b.BackfillID); c != 0 {
			return c
		}
		if c := cmp.Compare(a.RuleID, b.RuleID); c != 0 {
			return c
		}
		return cmp.Compare(a.ArtifactURI, b.ArtifactURI)
	})
	// Place k takes the finding at idx[k]; follow each cycle of the
	// permutation, marking places done.
	for k := range idx {
		if idx[k] < 0 || idx[k] == int32(k) {
			continue
		}
		held := fs[k]
		j := k
		for {
			from := int(idx[j])
			idx[j] = -1
			if from == k {
				fs[j] = held
				break
			}
			fs[j] = fs[from]
			j = from
		}
	}
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
	if _, err := duration.Parse(p.Default); err == nil {
		d, err := duration.Parse(v)
		switch {
		case err != nil:
			return fmt.Errorf("expected a duration such as 72h or 14d, got %q: %v", v, err)
		case d < 0:
			return fmt.Errorf("expected a duration such as 72h or 14d, got %q: negative", v)
		}
	}
	return nil
}
