package remedy

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
)

// Remove is the remedy of a rule about an artifact that should be gone:
// the commands that remove it from its system, at the given step, or for a
// system bfaudit has no command for, what to remove and where.
func Remove(step model.Step) Builder {
	return func(r *Remedy, _ model.Finding, facts Facts) { removeArtifact(r, facts, step) }
}

// DisabledJob removes a paused or disabled job, with a word on keeping it
// as a runbook entry instead.
func DisabledJob(r *Remedy, _ model.Finding, facts Facts) {
	removeArtifact(r, facts, model.StepRetired)
	runbookNote(r)
}

// removal fills the commands that remove an artifact from its system.
func removal(r *Remedy, a *model.Artifact) {
	if remove := commandsOf(a).Remove; remove != nil {
		remove(r, a)
	}
}

// removeArtifact removes the finding's artifact; for a system bfaudit has
// no command for (an inventory file, a Prometheus rule file), it says what
// to remove and where.
func removeArtifact(r *Remedy, facts Facts, step model.Step) {
	a := facts.Artifact
	if a == nil {
		return
	}
	removal(r, a)
	if len(r.Actions) == 0 {
		r.Human = manualRemoval(a, step)
	}
}

// manualRemoval says what to remove by hand.
func manualRemoval(a *model.Artifact, step model.Step) *Human {
	if manual := commandsOf(a).Manual; manual != nil {
		return manual(a, step)
	}
	verb := "Delete"
	if a.Kind == model.KindFeatureFlag {
		verb = "Turn off and delete"
	}
	return &Human{Step: step, Where: a.URI,
		What: fmt.Sprintf("%s the %s %s in %s: bfaudit has no command for this system.", verb, a.Kind, a.NameOrURI(), OrDash(systemOf(a)))}
}

// ExpiredJob: a job still scheduled is paused now (nothing verifies a
// range the job may still write to) and deleted once the record is
// archived; a finished run object is deleted.
func ExpiredJob(r *Remedy, _ model.Finding, facts Facts) {
	a := facts.Artifact
	if a == nil {
		return
	}
	if a.Kind == model.KindSchedulerJob && a.State != model.StatePaused && a.State != model.StateDisabled {
		if pause := commandsOf(a).Pause; pause != nil {
			pause(r, a)
		}
	}
	removeArtifact(r, facts, model.StepRetired)
	if a.Kind == model.KindSchedulerJob {
		runbookNote(r)
	}
}

func runbookNote(r *Remedy) {
	r.Notes = append(r.Notes, "if the job is needed for future recovery, convert it into an owned, tested runbook entry instead of deleting it, and set its runbook attribute")
}

// OrDash is s, or "-" when empty, for a name in a sentence.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// locationOr is the file a finding points at, or a fallback.
func locationOr(f model.Finding, fallback string) string {
	if f.Location != nil && f.Location.Path != "" {
		return f.Location.String()
	}
	return fallback
}
