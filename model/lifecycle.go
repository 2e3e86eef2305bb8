package model

// Step is a position in the cleanup lifecycle of docs/practice.md,
// "Close the loop in order". A rule names the step its findings block.
type Step int8

// Steps in the order the practice requires them.
const (
	StepPlan          Step = iota // before and during the replay: governance
	StepVerified                  // corrected range exists and matches the requirement
	StepNormalized                // pipeline back on its normal schedule and alerting
	StepAccessRevoked             // temporary write paths and elevated credentials gone
	StepArchived                  // decision record holds what the practice lists
	StepRetired                   // temporary tables and job definitions deleted
)

var stepNames = []string{"plan", "verified", "normalized", "access revoked", "archived", "retired"}

// Steps lists the cleanup steps, in order (StepPlan excluded).
func Steps() []Step {
	return []Step{StepVerified, StepNormalized, StepAccessRevoked, StepArchived, StepRetired}
}

func (s Step) String() string {
	if s >= 0 && int(s) < len(stepNames) {
		return stepNames[s]
	}
	return "unknown"
}

// MarshalText writes the step's name.
func (s Step) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a step's name.
func (s *Step) UnmarshalText(b []byte) error {
	for i, n := range stepNames {
		if n == string(b) {
			*s = Step(i)
			return nil
		}
	}
	*s = StepPlan
	return nil
}

// Lifecycle is where one backfill stands in the cleanup order.
type Lifecycle struct {
	// Reached is the last step completed without anything blocking it or an
	// earlier step; StepPlan means the replay has not been verified yet.
	Reached Step `json:"reached"`
	// Next is the step to work on; equal to Reached when all are done.
	Next Step `json:"next"`
	// Done reports every step is complete.
	Done bool `json:"done"`
	// Blockers say what keeps Next from being reached.
	Blockers []string `json:"blockers,omitempty"`
	// Unknown names the sources that did not answer for Next when nothing
	// else blocks it: the step may well be done, but nobody can tell, so it
	// is neither reached nor "not done". Reports show it as unknown.
	Unknown []string `json:"unknown,omitempty"`
}

// State is the word for Next in reports: "done" when every step is
// complete, "unknown" when only silent sources keep Next open, else
// "open".
func (l Lifecycle) State() string {
	switch {
	case l.Done:
		return "done"
	case len(l.Unknown) > 0:
		return "unknown"
	}
	return "open"
}
