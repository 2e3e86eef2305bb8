// Package rules is bfaudit's rule engine: built-in rules written in Go with
// their metadata as data, user rules in CEL, severity overrides, disabled
// rules and waivers from config. It turns a correlated estate into findings
// with stable fingerprints.
package rules

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// Param is a tunable of a rule; its value comes from config
// (rules.params.<ID>.<name>) or the default.
type Param struct {
	Name        string `json:"name"`
	Default     string `json:"default"`
	Description string `json:"description"`
}

// Rule is one check with the metadata that explains it.
type Rule struct {
	ID          string         `json:"id"`    // BF003; stable once shipped
	Name        string         `json:"name"`  // lingering-elevated-grant
	Title       string         `json:"title"` // one line, for reports
	Rationale   string         `json:"rationale"`
	Practice    string         `json:"practice"` // the section of docs/practice.md it checks (an anchor; "" for user rules)
	Remediation string         `json:"remediation"`
	Severity    model.Severity `json:"severity"`
	// Ladder is the rule's severity as a function of the artifact's state
	// and the backfill's classification: its rungs from least to most
	// severe, Severity (the default) among them. A check reports the rung
	// a finding stands on (Issue.Severity); a severity override in config
	// moves the whole ladder. Empty: every finding has Severity.
	Ladder []Rung `json:"ladder,omitempty"`
	// Raised sums up the rungs other than the default, for one-line
	// listings; Register writes it from Ladder.
	Raised string `json:"raised,omitempty"`
	// Supersedes lists the rules whose finding on the same artifact (same
	// backfill and artifact URI) this rule's finding absorbs: the engine
	// folds it into this finding's evidence after every check ran, so one
	// problem is one finding (see Engine.Evaluate).
	Supersedes []Supersede `json:"supersedes,omitempty"`
	// Step is the lifecycle step a finding of this rule blocks.
	Step model.Step `json:"step"`
	// Governance rules judge plans before and during the replay; they are
	// what `bfaudit plan check` runs.
	Governance bool    `json:"governance"`
	Params     []Param `json:"params,omitempty"`
	// Kinds are the artifact kinds the rule judges; nil means every kind
	// (or none: a rule about plans and records). The engine hands the
	// rule only these (Context.Tied, Artifacts, ArtifactsOf), from an
	// index by kind it builds once per evaluation.
	Kinds []model.Kind `json:"-"`
	// Check inspects the estate and reports findings through the context.
	Check func(*Context) `json:"-"`
	// Remedy is how the fix of a finding is built (the commands, or what
	// a person writes where), with its examples for the docs. Register
	// hands it to the remedy package; every built-in rule has one.
	Remedy *remedy.Recipe `json:"-"`

	// Expr and AppliesTo are set on user rules (CEL, from config); such a
	// rule has no Check: the engine evaluates every user rule in one pass
	// over the artifacts and one over the backfills.
	Expr      string `json:"expr,omitempty"`
	AppliesTo string `json:"applies_to,omitempty"`
	program   *userProgram
	// meta rules report on the engine's own inputs (waivers, user rules);
	// their findings are made by the engine, not by Check.
	meta bool
}

// Rung is one step of a rule's severity ladder: the severity a finding
// takes When the artifact's state or the backfill's classification says so.
type Rung struct {
	Severity model.Severity `json:"severity"`
	When     string         `json:"when"`
}

// Supersede names a rule whose finding on an artifact is folded into this
// rule's finding on the same artifact.
type Supersede struct {
	Rule string `json:"rule"`
	// As is how the folded finding reads in the evidence line it becomes
	// ("not time-bound"), followed by what it said that the finding does
	// not already say.
	As string `json:"as"`
}

// OnLadder reports whether sev is one of the rule's rungs (the default
// severity when the rule has no ladder).
func (r *Rule) OnLadder(sev model.Severity) bool {
	if len(r.Ladder) == 0 {
		return sev == r.Severity
	}
	for _, g := range r.Ladder {
		if g.Severity == sev {
			return true
		}
	}
	return false
}

// raisedText sums up the rungs other than the default.
func (r *Rule) raisedText() string {
	var parts []string
	for _, g := range r.Ladder {
		if g.Severity != r.Severity {
			parts = append(parts, g.Severity.String()+" "+g.When)
		}
	}
	return strings.Join(parts, "; ")
}

// User reports whether the rule is a user rule from config.
func (r *Rule) User() bool { return r.program != nil }

// Validate reports missing metadata; every registered rule must pass.
func (r *Rule) Validate() error {
	switch {
	case r.ID == "" || r.Name == "" || r.Title == "":
		return fmt.Errorf("rule %q: id, name and title are required", r.ID)
	case r.Rationale == "" || r.Remediation == "":
		return fmt.Errorf("rule %s: rationale and remediation are required", r.ID)
	case r.program == nil && PracticeTitles[r.Practice] == "":
		return fmt.Errorf("rule %s: practice %q is not a section of docs/practice.md", r.ID, r.Practice)
	case !r.Severity.IsValid():
		return fmt.Errorf("rule %s: invalid default severity", r.ID)
	case r.Check == nil && r.program == nil:
		return fmt.Errorf("rule %s: no check", r.ID)
	}
	if len(r.Ladder) > 0 {
		if !r.OnLadder(r.Severity) {
			return fmt.Errorf("rule %s: default severity %s is not a rung of its ladder", r.ID, r.Severity)
		}
		for i, g := range r.Ladder {
			switch {
			case !g.Severity.IsValid() || g.When == "":
				return fmt.Errorf("rule %s: ladder rung %d needs a valid severity and a when", r.ID, i)
			case i > 0 && g.Severity <= r.Ladder[i-1].Severity:
				return fmt.Errorf("rule %s: ladder rungs go from least to most severe", r.ID)
			}
		}
	}
	for _, s := range r.Supersedes {
		if s.Rule == "" || s.As == "" || s.Rule == r.ID {
			return fmt.Errorf("rule %s: a superseded rule needs another rule's id and how it reads (As)", r.ID)
		}
	}
	for _, p := range r.Params {
		if p.Name == "" || p.Default == "" || p.Description == "" {
			return fmt.Errorf("rule %s: param %q needs a name, default and description", r.ID, p.Name)
		}
	}
	return nil
}

var (
	mu       sync.RWMutex
	registry = map[string]*Rule{}
)

// Register adds a built-in rule; registering an id twice or a rule with
// missing metadata is a programming error.
func Register(r *Rule) {
	if err := r.Validate(); err != nil {
		panic(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[r.ID]; dup {
		panic(fmt.Sprintf("rules: %s registered twice", r.ID))
	}
	if len(r.Ladder) > 0 && r.Raised == "" {
		r.Raised = r.raisedText()
	}
	registry[r.ID] = r
	if r.Remedy != nil {
		remedy.Register(r.ID, *r.Remedy)
	}
}

// All returns the registered rules sorted by id.
func All() []*Rule {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup finds a rule by id (case-insensitive) or name.
func Lookup(key string) (*Rule, bool) {
	mu.RLock()
	defer mu.RUnlock()
	for _, r := range registry {
		if equalFold(r.ID, key) || r.Name == key {
			return r, true
		}
	}
	return nil, false
}
