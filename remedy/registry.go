package remedy

import (
	"fmt"
	"sync"

	"github.com/bfaudit/bfaudit/model"
)

// Builder fills the remedy of one rule's finding.
type Builder func(r *Remedy, f model.Finding, facts Facts)

// Recipe is what remedy knows of one rule: how to build the remedy of its
// findings, what artifact a finding alone is about, and the examples
// docs/rules.md shows. A rule carries its recipe in its metadata, and the
// rule registry hands it to Register: adding a rule edits no table here.
type Recipe struct {
	Build Builder
	// Kind and State are what the artifact of a finding is taken to be
	// when only the finding is known (a report holds findings, not
	// artifacts); the URI refines them. Empty for rules about a whole
	// backfill, or whose artifact the URI alone names.
	Kind  model.Kind
	State model.State
	// Examples are findings of the rule on example artifacts and plans.
	Examples []ExampleOf
}

var (
	recipesMu sync.RWMutex
	recipes   = map[string]Recipe{}
)

// Register records the remedy of a rule. It is meant to be called from
// init, through the rule's registration; a rule registered twice or a
// recipe with nothing to build is a programming error.
func Register(ruleID string, rc Recipe) {
	if rc.Build == nil {
		panic(fmt.Sprintf("remedy: %s registered with no builder", ruleID))
	}
	recipesMu.Lock()
	defer recipesMu.Unlock()
	if _, dup := recipes[ruleID]; dup {
		panic(fmt.Sprintf("remedy: %s registered twice", ruleID))
	}
	recipes[ruleID] = rc
}

// Registered reports whether a rule has a remedy. A rule without one has
// only its remediation text.
func Registered(ruleID string) bool {
	_, ok := recipeOf(ruleID)
	return ok
}

func recipeOf(ruleID string) (Recipe, bool) {
	recipesMu.RLock()
	defer recipesMu.RUnlock()
	rc, ok := recipes[ruleID]
	return rc, ok
}
