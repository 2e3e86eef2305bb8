package correlate

import (
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Owned is a table derived from a backfill's targets with who answers for
// it.
type Owned struct {
	Derived
	// Owner is the table's build's owner, else the owner of its table
	// artifact; "" when neither is known.
	Owner string
}

// DownstreamOwners is Lineage().Downstream(targets...), in rebuild order,
// each table with its owner. The audit's BF114 and the plan preview ask
// the same question, so they share the answer.
func (ix *Index) DownstreamOwners(targets ...string) []Owned {
	l := ix.Lineage()
	if l.Empty() {
		return nil
	}
	owners := map[string]string{}
	for i := range ix.Artifacts {
		a := &ix.Artifacts[i]
		if a.Kind == model.KindTable && a.Owner != "" {
			owners[model.TableRef(a.URI)] = a.Owner
		}
	}
	var out []Owned
	for _, d := range l.Downstream(targets...) {
		owner := d.Build.Owner
		if owner == "" {
			owner = owners[d.Table]
		}
		out = append(out, Owned{Derived: d, Owner: owner})
	}
	return out
}

// Unnotified keeps the tables whose owner is known and not among notified
// (people or teams, as a plan writes them; compared case-insensitively).
func Unnotified(tables []Owned, notified []string) []Owned {
	var out []Owned
	for _, t := range tables {
		if t.Owner == "" || slices.ContainsFunc(notified, func(n string) bool { return strings.EqualFold(strings.TrimSpace(n), t.Owner) }) {
			continue
		}
		out = append(out, t)
	}
	return out
}
