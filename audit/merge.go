package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// maxMergeNotes caps the notes MergeEstates returns about entries that
// differ between estates; the rest are counted.
const maxMergeNotes = 10

// EstatePaths expands the --from arguments: a file is itself, a directory
// is every *.json file in it (sorted). A directory without one is an
// error, not an empty estate.
func EstatePaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("estate %s: file not found", a)
		case err != nil:
			return nil, fmt.Errorf("estate %s: %w", a, err)
		case !st.IsDir():
			out = append(out, a)
			continue
		}
		files, err := filepath.Glob(filepath.Join(a, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("estate directory %s: %w", a, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("estate directory %s: holds no *.json estate", a)
		}
		sort.Strings(files)
		out = append(out, files...)
	}
	return out, nil
}

// LoadEstates reads and merges the estates at paths (see MergeEstates),
// one file at a time. Notes name entries that differed between estates.
func LoadEstates(paths []string) (*model.Estate, []string, error) {
	if len(paths) == 0 {
		return nil, nil, errors.New("no estate to read")
	}
	m := newMerger()
	var in *interner
	if len(paths) > 1 {
		in = newSharedInterner()
	}
	for _, p := range paths {
		est, err := loadEstate(p, in)
		if err != nil {
			return nil, nil, err
		}
		if len(paths) == 1 && !slices.ContainsFunc(est.Coverage, func(c model.Coverage) bool { return c.Shard != nil }) {
			// What finish returns for one estate that is not a shard,
			// without first copying every entry into the merge (issue 14:
			// that was a fifth of `audit --from` on 100k artifacts).
			return est, nil, nil
		}
		if err := m.add(p, est); err != nil {
			return nil, nil, err
		}
	}
	return m.finish()
}

// MergeEstates merges estates, each named (by its file) for messages:
//   - artifacts are de-duplicated by source and URI, backfills (plans) and
//     records by id and location; when two estates hold different versions
//     of one, the later-collected estate's is kept and a note says so;
//   - coverage is unioned per source and unit: an error in any estate
//     stays;
//   - estates collected with --shard must all be shards of the same N; a
//     shard that is missing, or held by two estates, leaves every source
//     it collected (split, or whole) not answered, with an error naming
//     the shard, so nothing is resolved because a shard is absent.
//
// Estates without shard specs merge as plain unions.
func MergeEstates(names []string, ests []*model.Estate) (*model.Estate, []string, error) {
	m := newMerger()
	for i, est := range ests {
		if err := m.add(names[i], est); err != nil {
			return nil, nil, err
		}
	}
	return m.finish()
}

type estateInfo struct {
	name  string
	at    int64 // collected_at, Unix nanoseconds
	order int
	shard *model.ShardSpec
}

// later reports whether estate a's version of an entry wins over b's.
func (a estateInfo) later(b estateInfo) bool {
	if a.at != b.at {
		return a.at > b.at
	}
	return a.order > b.order
}

type covEntry struct {
	cov model.Coverage
	est int
}

type merger struct {
	ests []estateInfo

	artifacts []model.Artifact
	artFrom   []int
	artIdx    map[string]int
	backfills []model.Backfill
	bfFrom    []int
	bfIdx     map[string]int
	records   []model.DecisionRecord
	recFrom   []int
	recIdx    map[string]int
	edges     []model.Edge
	edgeFrom  []int
	edgeIdx   map[string]int
	builds    []model.Build
	buildFrom []int
	buildIdx  map[string]int

	coverage map[string][]covEntry
	sources  []string // in order of first sight
	first    *model.Estate

	notes    []string
	conflict int
}

func newMerger() *merger {
	return &merger{artIdx: map[string]int{}, bfIdx: map[string]int{}, recIdx: map[string]int{},
		edgeIdx: map[string]int{}, buildIdx: map[string]int{}, coverage: map[string][]covEntry{}}
}

func (m *merger) note(format string, args ...any) {
	m.conflict++
	if len(m.notes) < maxMergeNotes {
		m.notes = append(m.notes, fmt.Sprintf(format, args...))
	}
}

func (m *merger) add(name string, est *model.Estate) error {
	info := estateInfo{name: name, at: est.CollectedAt.UnixNano(), order: len(m.ests)}
	for _, c := range est.Coverage {
		if c.Shard == nil {
			continue
		}
		if info.shard == nil {
			s := *c.Shard
			info.shard = &s
			continue
		}
		if c.Shard.Index != info.shard.Index || c.Shard.Count != info.shard.Count {
			return fmt.Errorf("estate %s: coverage of %s says shard %s, another source says %s: the file mixes shards",
				name, c.Source, model.ShardName(c.Shard.Index, c.Shard.Count), model.ShardName(info.shard.Index, info.shard.Count))
		}
	}
	for _, o := range m.ests {
		if o.shard != nil && info.shard != nil && o.shard.Count != info.shard.Count {
			return fmt.Errorf("estate %s is shard %s but %s is shard %s: they are not shards of one collection (the number of shards differs)",
				name, model.ShardName(info.shard.Index, info.shard.Count), o.name, model.ShardName(o.shard.Index, o.shard.Count))
		}
	}
	e := len(m.ests)
	m.ests = append(m.ests, info)
	if m.first == nil {
		m.first = est
	}

	for _, a := range est.Artifacts {
		k := a.Source + "\x00" + a.URI
		mergeEntry(m, &m.artifacts, &m.artFrom, m.artIdx, k, a, e, func(x, y model.Artifact) bool { return reflect.DeepEqual(x, y) },
			func(a model.Artifact) string { return fmt.Sprintf("artifact %s of %s", a.URI, a.Source) })
	}
	for _, b := range est.Backfills {
		k := b.ID + "\x00" + b.Source.String()
		i, seen := m.bfIdx[k]
		if seen && m.bfFrom[i] != e {
			// Only the shard of the validation source runs a plan's
			// validation query: the others leave it empty.
			old := m.backfills[i]
			if sameButValidation(old, b) && (old.Validation == nil) != (b.Validation == nil) {
				if old.Validation == nil {
					m.backfills[i].Validation = b.Validation
				}
				continue
			}
		}
		mergeEntry(m, &m.backfills, &m.bfFrom, m.bfIdx, k, b, e, func(x, y model.Backfill) bool { return reflect.DeepEqual(x, y) },
			func(b model.Backfill) string { return fmt.Sprintf("backfill %s from %s", b.ID, b.Source) })
	}
	for _, r := range est.Records {
		k := r.BackfillID + "\x00" + r.Source.String()
		mergeEntry(m, &m.records, &m.recFrom, m.recIdx, k, r, e, func(x, y model.DecisionRecord) bool { return reflect.DeepEqual(x, y) },
			func(r model.DecisionRecord) string {
				return fmt.Sprintf("record of %s from %s", r.BackfillID, r.Source)
			})
	}
	for _, x := range est.Edges {
		k := x.Source + "\x00" + x.Parent + "\x00" + x.Child + "\x00" + x.Via
		mergeEntry(m, &m.edges, &m.edgeFrom, m.edgeIdx, k, x, e, func(x, y model.Edge) bool { return x == y },
			func(x model.Edge) string {
				return fmt.Sprintf("lineage edge %s -> %s of %s", x.Parent, x.Child, x.Source)
			})
	}
	for _, b := range est.Builds {
		k := b.Source + "\x00" + b.Table + "\x00" + b.Node + "\x00" + b.BackfillID
		mergeEntry(m, &m.builds, &m.buildFrom, m.buildIdx, k, b, e, sameBuild,
			func(b model.Build) string { return fmt.Sprintf("build of %s from %s", b.Table, b.Source) })
	}
	for _, c := range est.Coverage {
		if _, ok := m.coverage[c.Source]; !ok {
			m.sources = append(m.sources, c.Source)
		}
		m.coverage[c.Source] = append(m.coverage[c.Source], covEntry{cov: c, est: e})
	}
	return nil
}

// sameBuild compares builds, their times as instants.
func sameBuild(x, y model.Build) bool {
	at := x.At.Equal(y.At)
	x.At, y.At = time.Time{}, time.Time{}
	return at && x == y
}

func sameButValidation(a, b model.Backfill) bool {
	a.Validation, b.Validation = nil, nil
	return reflect.DeepEqual(a, b)
}

// mergeEntry adds v under key k from estate e. Entries of one estate are
// all kept (two sources may report one URI); across estates an identical
// entry is kept once, and of two different ones the later-collected
// estate's wins, with a note.
func mergeEntry[T any](m *merger, list *[]T, from *[]int, idx map[string]int, k string, v T, e int, same func(T, T) bool, what func(T) string) {
	i, seen := idx[k]
	if !seen || (*from)[i] == e {
		idx[k] = len(*list)
		*list = append(*list, v)
		*from = append(*from, e)
		return
	}
	if same((*list)[i], v) {
		return
	}
	old, cur := m.ests[(*from)[i]], m.ests[e]
	keep, drop := old, cur
	if cur.later(old) {
		(*list)[i], (*from)[i] = v, e
		keep, drop = cur, old
	}
	m.note("%s differs between %s and %s: kept %s's (collected later)", what(v), drop.name, keep.name, keep.name)
}

func (m *merger) finish() (*model.Estate, []string, error) {
	if len(m.ests) == 1 && m.ests[0].shard == nil {
		return m.first, nil, nil
	}
	out := &model.Estate{Version: model.EstateVersion, Artifacts: m.artifacts, Backfills: m.backfills, Records: m.records,
		Edges: m.edges, Builds: m.builds}
	out.CollectedAt = m.earliest()
	missing, doubled := m.shardGaps()
	counts := countBySource(out)
	for _, src := range m.sources {
		out.Coverage = append(out.Coverage, m.mergeCoverage(src, missing, doubled, counts[src]))
	}
	collectors.Sort(out)
	notes := m.notes
	if m.conflict > len(notes) {
		notes = append(notes, fmt.Sprintf("and %d more entries that differ between estates", m.conflict-len(notes)))
	}
	return out, notes, nil
}

// earliest is when the oldest part of the merged estate was collected.
func (m *merger) earliest() time.Time {
	var at int64
	for _, e := range m.ests {
		if e.at > 0 && (at == 0 || e.at < at) {
			at = e.at
		}
	}
	if at == 0 {
		return time.Time{}
	}
	return time.Unix(0, at).UTC()
}

// shardGaps says, for sharded estates, why a shard's word cannot be
// taken: missing from the set, or held by more than one estate.
func (m *merger) shardGaps() (missing map[int]bool, doubled map[int][]string) {
	count := 0
	held := map[int][]string{}
	for _, e := range m.ests {
		if e.shard != nil {
			count = e.shard.Count
			held[e.shard.Index] = append(held[e.shard.Index], e.name)
		}
	}
	missing, doubled = map[int]bool{}, map[int][]string{}
	for i := range count {
		switch n := held[i]; {
		case len(n) == 0:
			missing[i] = true
		case len(n) > 1:
			doubled[i] = n
		}
	}
	return missing, doubled
}

type sourceCounts struct{ artifacts, backfills, records int }

func countBySource(est *model.Estate) map[string]*sourceCounts {
	out := map[string]*sourceCounts{}
	get := func(s string) *sourceCounts {
		if out[s] == nil {
			out[s] = &sourceCounts{}
		}
		return out[s]
	}
	for _, a := range est.Artifacts {
		get(a.Source).artifacts++
	}
	for _, b := range est.Backfills {
		get(b.Source.Source).backfills++
	}
	for _, r := range est.Records {
		get(r.Source.Source).records++
	}
	return out
}

// statusRank orders the states model.Coverage.State reads: the merged
// entry is as bad as its worst shard.
var statusRank = map[model.CoverageStatus]int{model.CoverageOK: 0, model.CoverageDegraded: 1, model.CoverageFailed: 2}

// mergeCoverage unions one source's coverage across estates and marks it
// not answered for every shard it depended on that cannot be trusted.
func (m *merger) mergeCoverage(src string, missing map[int]bool, doubled map[int][]string, n *sourceCounts) model.Coverage {
	entries := m.coverage[src]
	out := model.Coverage{Source: src, Status: model.CoverageOK}
	var errs []string
	var contributing int
	// The shards this source's answer depends on.
	depends := map[int]bool{}
	count := 0
	for _, ce := range entries {
		c := ce.cov
		if out.System == "" {
			out.System = c.System
		}
		if s := c.Shard; s != nil {
			count = s.Count
			switch s.Mode {
			case model.ShardSplit:
				for i := range s.Count {
					depends[i] = true
				}
			case model.ShardWhole, model.ShardElsewhere:
				depends[s.Owner] = true
			}
			if s.Mode == model.ShardElsewhere {
				continue // the owner's estate answers for it
			}
		}
		contributing++
		out.Artifacts, out.Backfills, out.Records = c.Artifacts, c.Backfills, c.Records
		if st := c.State(); statusRank[st] > statusRank[out.Status] {
			out.Status = st
		}
		if c.Error != "" {
			e := c.Error
			if len(entries) > 1 {
				e = m.ests[ce.est].name + ": " + e
			}
			errs = append(errs, e)
		}
		for _, se := range c.Errors {
			if !slices.Contains(out.Errors, se) {
				out.Errors = append(out.Errors, se)
			}
		}
		for _, note := range c.Notes {
			if !slices.Contains(out.Notes, note) {
				out.Notes = append(out.Notes, note)
			}
		}
	}
	// One estate's counts stand as saved; merged ones are counted again,
	// as entries seen by several shards are kept once.
	switch {
	case contributing == 0:
		out.Status = model.CoverageFailed
	case contributing > 1:
		out.Artifacts, out.Backfills, out.Records = 0, 0, 0
		if n != nil {
			out.Artifacts, out.Backfills, out.Records = n.artifacts, n.backfills, n.records
		}
	}
	for i := range count {
		if !depends[i] {
			continue
		}
		name := model.ShardName(i, count)
		switch {
		case missing[i]:
			errs = append(errs, fmt.Sprintf("shard %s is missing from the estates read (--from): what it collected of this source did not answer", name))
		case len(doubled[i]) > 0:
			errs = append(errs, fmt.Sprintf("shard %s is in more than one estate (%s): which one answered for this source cannot be told", name, strings.Join(doubled[i], ", ")))
		default:
			continue
		}
		if out.Status == model.CoverageOK {
			out.Status = model.CoverageDegraded
		}
		out.Errors = append(out.Errors, model.ScopeError{Error: errs[len(errs)-1]})
	}
	if contributing == 0 && len(errs) == 0 {
		errs = append(errs, "no estate read holds this source's coverage: the shard that collects it was not run with the same config")
	}
	if out.Status == model.CoverageFailed {
		out.Error = strings.Join(errs, "; ")
	}
	sort.Slice(out.Errors, func(i, j int) bool {
		if out.Errors[i].Scope != out.Errors[j].Scope {
			return out.Errors[i].Scope < out.Errors[j].Scope
		}
		return out.Errors[i].Error < out.Errors[j].Error
	})
	return out
}
