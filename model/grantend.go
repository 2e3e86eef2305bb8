package model

import "time"

// SetEnd records what a grant's condition says of its end, as
// correlate/iamcond reads it (end, bounded, err): ExpiresAt and
// time_bound "true" when the condition bounds the grant, or
// condition_error when it could not be read. Whether an end that has
// passed makes the grant expired is the system's to say.
func (a *Artifact) SetEnd(end time.Time, bounded bool, err error) {
	switch {
	case err != nil:
		a.SetAttr(AttrConditionError, err.Error())
	case bounded:
		a.ExpiresAt = At(end)
		a.SetAttr(AttrTimeBound, "true")
	}
}
