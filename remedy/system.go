package remedy

import (
	"fmt"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// System is what bfaudit knows of the cleanup in one system (named as
// artifacts name their System, the collector's type): the commands it
// writes for the system's artifacts and what applies them. Each field is
// nil where the system has no such thing. A system's folder,
// collectors/<type>, registers it from init beside its collector.
type System struct {
	// Remove appends the commands that remove the artifact.
	Remove func(r *Remedy, a *model.Artifact)
	// Pause appends the command that stops a scheduled job running.
	Pause func(r *Remedy, a *model.Artifact)
	// Bound is the template that gives a grant an end, and what to do
	// with it; "" when the artifact is not such a grant.
	Bound func(a *model.Artifact, end string) (template, what string)
	// Manual says what to remove by hand, for a system with no command.
	Manual func(a *model.Artifact, step model.Step) *Human
	// Infer fills, from the URI alone, the kind and attributes the
	// commands need (a report holds findings, not artifacts).
	Infer func(a *model.Artifact)
	// Actions are the actions only this system takes, each with whether
	// it can be undone (see Actions); the shared ones are declared in this
	// package.
	Actions map[string]bool
	// Acts builds, from a configured source's collector, what applies the
	// commands through the system's API (`fix --apply`); nil where they
	// are only printed. Build it with ActsOn.
	Acts func(collector any) (Actor, error)
	// Catchup is where a scheduled job's start, end and catch-up are set,
	// and the template that sets them: catching up from start to end (a
	// backfill's replay over its plan's range) or, with zero times, a
	// recent start and catch-up off.
	Catchup func(a *model.Artifact, start, end time.Time) (where, template string)
	// Rebuild is the command that rebuilds a derived table, given the node
	// that last wrote it (a dbt model); nil where a rebuild is a re-run by
	// hand. It is printed only (see PrintOnly).
	Rebuild func(node string) string
	// Examples are artifacts as the system's collector emits them, by a
	// name unique across systems, on which docs/rules.md shows the rules'
	// fixes (ExampleOn).
	Examples map[string]model.Artifact
}

var (
	systemsMu sync.RWMutex
	systems   = map[string]System{}
)

// RegisterSystem records a system's cleanup. It is meant to be called from
// init; a system registered twice is a programming error.
func RegisterSystem(name string, s System) {
	systemsMu.Lock()
	defer systemsMu.Unlock()
	if _, dup := systems[name]; dup {
		panic(fmt.Sprintf("remedy: system %q registered twice", name))
	}
	shared := sharedActions()
	for action := range s.Actions {
		if _, ok := shared[action]; ok {
			panic(fmt.Sprintf("remedy: system %q declares the shared action %q", name, action))
		}
	}
	for key, a := range s.Examples {
		if a.System != name {
			panic(fmt.Sprintf("remedy: system %q's example %q is of system %q", name, key, a.System))
		}
		if _, dup := exampleArtifact(key); dup {
			panic(fmt.Sprintf("remedy: example %q registered twice", key))
		}
	}
	systems[name] = s
}

// exampleArtifact is the registered example named key. The caller holds
// systemsMu.
func exampleArtifact(key string) (model.Artifact, bool) {
	for _, s := range systems {
		if a, ok := s.Examples[key]; ok {
			return a, true
		}
	}
	return model.Artifact{}, false
}

// SystemNamed returns the registered cleanup of a system (a collector
// type); the zero System when none is registered.
func SystemNamed(name string) System {
	systemsMu.RLock()
	defer systemsMu.RUnlock()
	return systems[name]
}

// commandsOf returns the cleanup of the artifact's system.
func commandsOf(a *model.Artifact) System { return SystemNamed(systemOf(a)) }
