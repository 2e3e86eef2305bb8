package builtin

import (
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/model"
)

// grantExpiry is when a grant stops being in force: its own ExpiresAt
// (VALID UNTIL, a collector that already read the condition), else the
// upper bound on request.time in its IAM condition. bounded is false when
// neither says; err is set when the condition cannot be read, so the caller
// can say so rather than silently treating the grant as unbounded.
func grantExpiry(a *model.Artifact) (t time.Time, bounded bool, err error) {
	if !a.ExpiresAt.IsZero() {
		return a.ExpiresAt.Time(), true, nil
	}
	if t := a.TimeAttr(model.AttrValidUntil); !t.IsZero() {
		return t, true, nil
	}
	cond := a.Attr(model.AttrCondition)
	if cond == "" {
		return time.Time{}, false, nil
	}
	return conditionExpiry(cond)
}

// Conditions repeat across bindings (one template per team), and BF003 and
// BF102 both read them, so each distinct expression is parsed once. The
// cache is capped so an estate of unique conditions cannot grow it without
// bound; past the cap expressions are simply parsed each time.
var (
	condMu    sync.Mutex
	condCache = map[string]condResult{}
)

const condCacheMax = 10000

type condResult struct {
	t       time.Time
	bounded bool
	err     error
}

func conditionExpiry(expr string) (time.Time, bool, error) {
	condMu.Lock()
	r, ok := condCache[expr]
	condMu.Unlock()
	if ok {
		return r.t, r.bounded, r.err
	}
	r.t, r.bounded, r.err = iamcond.Expiry(expr)
	condMu.Lock()
	if len(condCache) < condCacheMax {
		condCache[expr] = r
	}
	condMu.Unlock()
	return r.t, r.bounded, r.err
}
