package remedy

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
)

// commands is what remedy can write for the artifacts of one system
// (named as artifacts name their System, the collector's type). Each
// field is nil where the system has no such command.
type commands struct {
	// remove appends the commands that remove the artifact.
	remove func(r *Remedy, a *model.Artifact)
	// pause appends the command that stops a scheduled job running.
	pause func(r *Remedy, a *model.Artifact)
	// bound is the template that gives a grant an end, and what to do
	// with it; "" when the artifact is not such a grant.
	bound func(a *model.Artifact, end string) (template, what string)
	// manual says what to remove by hand, for a system with no command.
	manual func(a *model.Artifact, step model.Step) *Human
	// infer fills, from the URI alone, the kind and attributes the
	// commands need (a report holds findings, not artifacts).
	infer func(a *model.Artifact)
}

var bySystem = map[string]commands{}

// registerSystem records a system's commands; each system's file calls it
// from init, so adding a system edits no switch here.
func registerSystem(name string, c commands) {
	if _, dup := bySystem[name]; dup {
		panic(fmt.Sprintf("remedy: system %q registered twice", name))
	}
	bySystem[name] = c
}

// commandsOf returns the commands of the artifact's system.
func commandsOf(a *model.Artifact) commands { return bySystem[systemOf(a)] }
