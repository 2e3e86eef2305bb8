package correlate

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Lineage is the estate's lineage as a graph: which tables are derived from
// which, and each table's last known build. Tables are model.TableRef
// names; a backfill's targets meet them through model.SameTable.
type Lineage struct {
	children map[string][]model.Edge // by parent
	parents  map[string][]model.Edge // by child
	builds   map[string]model.Build  // the latest build per table, any source
	tables   []string                // every table named, sorted
	// replayed lists, per backfill, the tables its own runs wrote (builds
	// carrying its id).
	replayed map[model.BackfillID][]string
	views    map[string]bool     // tables some build says are views
	ids      map[string][]string // a system's node id (lower case) -> its tables
	names    map[string]string   // table -> the plain name its system selects it by (lower case)
}

// Derived is a table downstream of a backfill's target.
type Derived struct {
	Table string
	// Chain is one shortest path from the target to the table, the target
	// first; Edges are its edges, the last one into Table.
	Chain []string
	Edges []model.Edge
	// Build is the table's last known build; ok false when no source knows
	// one.
	Build    model.Build
	HasBuild bool
	// View says the table is a view: it holds no rows of its own and is
	// never stale itself; staleness passes through it to its children.
	View bool
}

// lazyLineage builds an index's lineage graph on first use: most audits
// have none, and rules that need it share one.
type lazyLineage struct {
	once sync.Once
	l    *Lineage
}

// Lineage returns the estate's lineage graph, built on first use.
func (ix *Index) Lineage() *Lineage {
	ix.lineage.once.Do(func() { ix.lineage.l = NewLineage(ix.Estate.Edges, ix.Estate.Builds) })
	return ix.lineage.l
}

// NewLineage indexes edges and builds. Of several builds of one table the
// latest wins; a build without a time only names the table's node.
func NewLineage(edges []model.Edge, builds []model.Build) *Lineage {
	l := &Lineage{children: map[string][]model.Edge{}, parents: map[string][]model.Edge{}, builds: map[string]model.Build{},
		replayed: map[model.BackfillID][]string{}, views: map[string]bool{}, ids: map[string][]string{}, names: map[string]string{}}
	seen := map[string]bool{}
	add := func(t string) {
		if t != "" && !seen[t] {
			seen[t] = true
			l.tables = append(l.tables, t)
		}
	}
	for _, e := range edges {
		if e.Parent == "" || e.Child == "" || e.Parent == e.Child {
			continue
		}
		l.children[e.Parent] = append(l.children[e.Parent], e)
		l.parents[e.Child] = append(l.parents[e.Child], e)
		add(e.Parent)
		add(e.Child)
	}
	for _, b := range builds {
		add(b.Table)
		if b.Table != "" {
			if b.View {
				l.views[b.Table] = true
			}
			if id := strings.ToLower(strings.TrimSpace(b.NodeID)); id != "" && !slices.Contains(l.ids[id], b.Table) {
				l.ids[id] = append(l.ids[id], b.Table)
			}
			if n := strings.ToLower(b.Node); n != "" && !strings.ContainsAny(n, ".:") {
				l.names[b.Table] = n
			}
		}
		if b.BackfillID != "" {
			id := model.ParseID(b.BackfillID)
			if !slices.Contains(l.replayed[id], b.Table) {
				l.replayed[id] = append(l.replayed[id], b.Table)
			}
		}
		old, ok := l.builds[b.Table]
		switch {
		case !ok, old.At.IsZero() && !b.At.IsZero(), b.At.After(old.At):
			if b.Node == "" && old.Node != "" && b.System == old.System {
				b.Node = old.Node
			}
			l.builds[b.Table] = b
		case old.Node == "" && b.Node != "":
			old.Node = b.Node
			l.builds[b.Table] = old
		}
	}
	slices.Sort(l.tables)
	for _, es := range l.children {
		slices.SortFunc(es, func(a, b model.Edge) int { return compareEdge(a, b) })
	}
	return l
}

func compareEdge(a, b model.Edge) int {
	switch {
	case a.Child != b.Child:
		return cmpString(a.Child, b.Child)
	case a.Parent != b.Parent:
		return cmpString(a.Parent, b.Parent)
	case a.Source != b.Source:
		return cmpString(a.Source, b.Source)
	}
	return cmpString(a.Via, b.Via)
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Targets lists the tables a backfill overwrote: its plan's targets, else
// what schedulers say its runs wrote, else the tables its own runs built
// (jobs labelled with its id, in a job history).
func (l *Lineage) Targets(b *model.Backfill) []string {
	if len(b.Targets) > 0 {
		return b.Targets
	}
	var out []string
	for _, v := range b.Scheduled {
		out = append(out, v.Targets...)
	}
	if len(out) > 0 {
		return out
	}
	out = slices.Clone(l.replayed[model.ParseID(b.ID)])
	slices.Sort(out)
	return out
}

// Empty reports whether no lineage source gave anything.
func (l *Lineage) Empty() bool { return len(l.tables) == 0 }

// Tables returns the graph's tables that a target names (see Match).
func (l *Lineage) Tables(target string) []string { return l.Match(target).Tables }

// TargetMatch is what one of a backfill's targets names in the lineage.
type TargetMatch struct {
	// Tables are the tables it names; none when it names nothing, or a
	// bare name fits several (Candidates).
	Tables []string
	// By says how: "id" (a node id such as dbt's model.shop.orders),
	// "name" (the table's name, or its end: schema.table), "identifier"
	// (a bare table or model name that only one table has).
	By string
	// Candidates are the tables a bare name fits when it fits more than
	// one: the target is ambiguous.
	Candidates []string
}

// Match resolves a target the way its users write it: a node id
// (seed.shop.raw_orders, source.shop.raw.payments), the table's name in
// any spelling model.TableRef reads (database.schema.table, or its end
// schema.table: model.SameTable), or a bare identifier (the table's last
// part, or the plain name its system selects it by) when exactly one
// table has it.
func (l *Lineage) Match(target string) TargetMatch {
	if ts := l.ids[strings.ToLower(strings.TrimSpace(target))]; len(ts) > 0 {
		return TargetMatch{Tables: slices.Sorted(slices.Values(ts)), By: "id"}
	}
	ref := model.TableRef(target)
	var out []string
	for _, t := range l.tables {
		if model.SameTable(ref, t) {
			out = append(out, t)
		}
	}
	if len(out) > 0 || ref == "" || strings.Contains(ref, ".") {
		return TargetMatch{Tables: out, By: "name"}
	}
	for _, t := range l.tables {
		if t[strings.LastIndex(t, ".")+1:] == ref || l.names[t] == ref {
			out = append(out, t)
		}
	}
	if len(out) == 1 {
		return TargetMatch{Tables: out, By: "identifier"}
	}
	return TargetMatch{Candidates: out}
}

// Build returns a table's latest known build.
func (l *Lineage) Build(table string) (model.Build, bool) {
	b, ok := l.builds[table]
	return b, ok
}

// Parents returns the edges into a table.
func (l *Lineage) Parents(table string) []model.Edge { return l.parents[table] }

// Downstream returns every table derived, at any depth, from the tables
// roots name, each once with a shortest chain from a root, in rebuild
// order: each table after every parent of it that is also downstream.
// Roots themselves are not returned. A cycle does not loop: its tables
// come last, by name.
func (l *Lineage) Downstream(roots ...string) []Derived {
	found := map[string]*Derived{}
	var queue []string
	isRoot := map[string]bool{}
	for _, r := range roots {
		for _, t := range l.Tables(r) {
			if !isRoot[t] {
				isRoot[t] = true
				queue = append(queue, t)
				found[t] = &Derived{Table: t, Chain: []string{t}}
			}
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, e := range l.children[cur] {
			if _, ok := found[e.Child]; ok {
				continue
			}
			p := found[cur]
			d := &Derived{Table: e.Child, Chain: append(slices.Clip(p.Chain), e.Child), Edges: append(slices.Clip(p.Edges), e), View: l.views[e.Child]}
			d.Build, d.HasBuild = l.builds[e.Child]
			found[e.Child] = d
			queue = append(queue, e.Child)
		}
	}
	var set []string
	for t := range found {
		if !isRoot[t] {
			set = append(set, t)
		}
	}
	slices.Sort(set)
	var out []Derived
	for _, t := range l.order(set) {
		out = append(out, *found[t])
	}
	return out
}

// order sorts tables topologically within the set (Kahn's algorithm, ties
// by name); tables left in a cycle follow by name.
func (l *Lineage) order(set []string) []string {
	in := map[string]bool{}
	for _, t := range set {
		in[t] = true
	}
	deg := map[string]int{}
	for _, t := range set {
		seen := map[string]bool{}
		for _, e := range l.parents[t] {
			if in[e.Parent] && !seen[e.Parent] {
				seen[e.Parent] = true
				deg[t]++
			}
		}
	}
	var ready, out []string
	for _, t := range set {
		if deg[t] == 0 {
			ready = append(ready, t)
		}
	}
	done := map[string]bool{}
	for len(ready) > 0 {
		slices.Sort(ready)
		t := ready[0]
		ready = ready[1:]
		done[t] = true
		out = append(out, t)
		seen := map[string]bool{}
		for _, e := range l.children[t] {
			if !in[e.Child] || seen[e.Child] {
				continue
			}
			seen[e.Child] = true
			if deg[e.Child]--; deg[e.Child] == 0 {
				ready = append(ready, e.Child)
			}
		}
	}
	for _, t := range set {
		if !done[t] {
			out = append(out, t)
		}
	}
	return out
}

// RebuiltSince reports whether a derived table's last successful build
// ended at or after t (a failed rebuild leaves the old numbers; Build.At is
// the last success).
func (d Derived) RebuiltSince(t time.Time) bool {
	return d.HasBuild && !d.Build.At.IsZero() && !d.Build.At.Before(t)
}

// Rebuild returns the tables downstream of roots that still need
// rebuilding after a rewrite that completed at done, in rebuild order: a
// table not rebuilt since, or rebuilt before a parent that was rebuilt
// after it or still needs rebuilding (it read the parent's old numbers).
// A view is never returned: it reads its parents when queried, so it holds
// old numbers exactly while a table it reads does, and a table built from
// it read what its parents held then.
func (l *Lineage) Rebuild(done time.Time, roots ...string) []Derived {
	all := l.Downstream(roots...)
	index := map[string]int{}
	for i, d := range all {
		index[d.Table] = i
	}
	needs := make([]bool, len(all))
	// fresh is when the rows a table gives were made: its last build; for
	// a view, the newest of its parents' (zero when it reads only roots).
	fresh := make([]time.Time, len(all))
	var out []Derived
	for i, d := range all {
		if d.View {
			for _, e := range l.parents[d.Table] {
				if j, ok := index[e.Parent]; ok {
					needs[i] = needs[i] || needs[j]
					if fresh[j].After(fresh[i]) {
						fresh[i] = fresh[j]
					}
				}
			}
			continue
		}
		fresh[i] = d.Build.At
		needs[i] = !d.RebuiltSince(done)
		for _, e := range l.parents[d.Table] {
			j, ok := index[e.Parent]
			if !ok || needs[i] {
				continue
			}
			needs[i] = needs[j] || fresh[j].After(d.Build.At)
		}
		if needs[i] {
			out = append(out, d)
		}
	}
	return out
}

// DataParents returns the edges into a table with every view among its
// parents replaced, at any depth, by the edges into that view: the tables
// whose rows the table read.
func (l *Lineage) DataParents(table string) []model.Edge {
	var out []model.Edge
	seen := map[string]bool{table: true}
	var walk func(t string)
	walk = func(t string) {
		for _, e := range l.parents[t] {
			if seen[e.Parent] {
				continue
			}
			seen[e.Parent] = true
			if l.views[e.Parent] {
				walk(e.Parent)
				continue
			}
			out = append(out, e)
		}
	}
	walk(table)
	return out
}
