package collectors

import (
	"cmp"
	"maps"
	"slices"

	"github.com/bfaudit/bfaudit/model"
)

// Reads tallies what one listing read across many units (a cluster-wide
// list, a search over many projects), to say it unit by unit once the
// listing is done. The zero value is ready to use.
type Reads struct {
	by map[readKey]model.UnitRead
}

type readKey struct{ scope, what string }

// Add counts n objects of kind what read at scope, partial of them only
// in part; n 0 still says the unit read none.
func (r *Reads) Add(scope, what string, n, partial int) {
	if r.by == nil {
		r.by = map[readKey]model.UnitRead{}
	}
	k := readKey{scope, what}
	u := r.by[k]
	u.Scope, u.What, u.Read, u.Partial = scope, what, u.Read+n, u.Partial+partial
	r.by[k] = u
}

// Len is how many units and kinds were counted.
func (r *Reads) Len() int { return len(r.by) }

// AddTo says each count to sink (Sink.AddRead), by scope then kind, so
// progress lines and tests see them in one order.
func (r *Reads) AddTo(sink Sink) {
	reads := slices.SortedFunc(maps.Values(r.by), func(a, b model.UnitRead) int {
		return cmp.Or(cmp.Compare(a.Scope, b.Scope), cmp.Compare(a.What, b.What))
	})
	for _, u := range reads {
		sink.AddRead(u.Scope, u.What, u.Read, u.Partial)
	}
}
