package builtin

import (
	"time"

	"github.com/bfaudit/bfaudit/internal/iamcond"
	"github.com/bfaudit/bfaudit/model"
)

// grantExpiry is when a grant stops being in force: its own ExpiresAt
// (VALID UNTIL, a collector that already read the condition), else the
// upper bound on request.time in its IAM condition. bounded is false when
// neither says; err is set when the condition cannot be read, so the caller
// can say so rather than silently treating the grant as unbounded.
func grantExpiry(a *model.Artifact) (t time.Time, bounded bool, err error) {
	if !a.ExpiresAt.IsZero() {
		return a.ExpiresAt, true, nil
	}
	if t := a.TimeAttr(model.AttrValidUntil); !t.IsZero() {
		return t, true, nil
	}
	cond := a.Attr(model.AttrCondition)
	if cond == "" {
		return time.Time{}, false, nil
	}
	return iamcond.Expiry(cond)
}
