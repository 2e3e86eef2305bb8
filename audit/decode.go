package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// decodeEstate reads a saved estate one list entry at a time, so the file
// is never held in memory, each list is sized once, and the strings that
// repeat across a large estate (kinds, systems, sources, scopes, states,
// owners, label and attribute keys and short values) are kept once.
// It reads what json.Unmarshal into a model.Estate reads, with its errors:
// keys match case-insensitively, unknown keys are skipped, a later key
// wins, null leaves a list nil (which LoadEstate refuses). A null document
// is an empty estate. Why not encoding/json alone: at 100,000 artifacts it
// takes twice the time and 3.5 times the memory (BenchmarkLoadStdlib);
// the json/v2 prototype did no better.
func decodeEstate(r io.Reader) (*model.Estate, error) { return decodeEstateWith(r, nil) }

// decodeEstateWith decodes with in's interned strings and decoded entries
// (see interner.backfills); nil starts afresh.
func decodeEstateWith(r io.Reader, in *interner) (*model.Estate, error) {
	s := newScanner(r)
	var est model.Estate
	c, ok := s.peek()
	switch {
	case !ok && s.err != nil:
		return nil, s.err
	case !ok:
		return nil, errEmpty
	case c == '{':
		s.pos++
	default:
		// null, or not an object: encoding/json says what it makes of it.
		raw, off, err := s.value()
		if err != nil {
			return nil, err
		}
		if err := unmarshalAt(raw, off, &est); err != nil {
			return nil, err
		}
		return &est, s.atEnd()
	}
	if in == nil {
		in = newInterner()
	}
	if c, _ := s.peek(); c == '}' {
		s.pos++
		return &est, s.atEnd()
	}
	for {
		if c, ok := s.peek(); !ok {
			return nil, s.end()
		} else if c != '"' {
			return nil, s.errorf("invalid character %q looking for beginning of object key string", c)
		}
		raw, off, err := s.value()
		if err != nil {
			return nil, err
		}
		var key string
		if err := unmarshalAt(raw, off, &key); err != nil {
			return nil, err
		}
		if err := s.expect(':', "after object key"); err != nil {
			return nil, err
		}
		switch {
		case strings.EqualFold(key, "version"):
			err = s.into(&est.Version)
		case strings.EqualFold(key, "collected_at"):
			err = s.into(&est.CollectedAt)
		case strings.EqualFold(key, "backfills"):
			est.Backfills, err = decodeList(s, func(raw []byte, off int64, b *model.Backfill) error {
				return decodeOnce(in.backfills, raw, off, b, in.backfill)
			})
		case strings.EqualFold(key, "artifacts"):
			est.Artifacts, err = decodeList(s, in.decodeArtifact)
		case strings.EqualFold(key, "records"):
			est.Records, err = decodeList(s, func(raw []byte, off int64, r *model.DecisionRecord) error {
				return decodeOnce(in.records, raw, off, r, in.record)
			})
		case strings.EqualFold(key, "coverage"):
			est.Coverage, err = decodeList(s, func(raw []byte, off int64, c *model.Coverage) error { return unmarshalAt(raw, off, c) })
		case strings.EqualFold(key, "edges"):
			est.Edges, err = decodeList(s, func(raw []byte, off int64, e *model.Edge) error { return unmarshalAt(raw, off, e) })
		case strings.EqualFold(key, "builds"):
			est.Builds, err = decodeList(s, func(raw []byte, off int64, b *model.Build) error { return unmarshalAt(raw, off, b) })
		default:
			err = s.into(new(any))
		}
		if err != nil {
			return nil, keyError(key, err)
		}
		switch c, ok := s.peek(); {
		case !ok:
			return nil, s.end()
		case c == ',':
			s.pos++
			continue
		case c == '}':
			s.pos++
			return &est, s.atEnd()
		default:
			return nil, s.errorf("invalid character %q after object key:value pair", c)
		}
	}
}

// atEnd checks that nothing but white space follows the estate.
func (s *scanner) atEnd() error {
	if c, ok := s.peek(); ok {
		return s.errorf("invalid character %q after top-level value", c)
	}
	return s.err
}

// into reads the next value into v with encoding/json.
func (s *scanner) into(v any) error {
	raw, off, err := s.value()
	if err != nil {
		return err
	}
	return unmarshalAt(raw, off, v)
}

// unmarshalAt is json.Unmarshal of a value found at offset off, whose
// syntax errors say where in the file they are.
func unmarshalAt(raw []byte, off int64, v any) error {
	err := json.Unmarshal(raw, v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &syntaxError{se.Error(), off + se.Offset}
	}
	return err
}

// errEmpty is a file with nothing but white space in it.
var errEmpty = errors.New("empty")

// entryError is an error in one entry of a list.
type entryError struct {
	i   int
	err error
}

func (e *entryError) Error() string { return fmt.Sprintf("[%d]: %v", e.i, e.err) }
func (e *entryError) Unwrap() error { return e.err }

// keyError names the top-level key an error is under ("artifacts[3]: ...");
// a syntax error is left alone, LoadEstate gives it a line.
func keyError(key string, err error) error {
	var se *syntaxError
	var ee *entryError
	switch {
	case errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF):
		return err
	case errors.As(err, &ee):
		return fmt.Errorf("%s%w", key, err)
	}
	return fmt.Errorf("%s: %w", key, err)
}

// decodeList reads a JSON list (or null) an entry at a time into blocks
// that are never moved, then copies them once into a slice of the exact
// length: appending to one slice would copy every entry several times and
// leave up to a quarter of it unused. read reads one entry from its bytes.
func decodeList[T any](s *scanner, read func(raw []byte, off int64, e *T) error) ([]T, error) {
	if c, _ := s.peek(); c != '[' {
		// null, or not a list: encoding/json's result and error.
		var l []T
		err := s.into(&l)
		return l, err
	}
	s.pos++
	var blocks [][]T
	block := make([]T, 0, 256)
	n := 0
	if c, _ := s.peek(); c == ']' {
		s.pos++
		return []T{}, nil
	}
	for {
		raw, off, err := s.value()
		if err != nil {
			return nil, err
		}
		if len(block) == cap(block) {
			blocks = append(blocks, block)
			block = make([]T, 0, min(2*cap(block), 1<<16))
		}
		block = block[:len(block)+1]
		if err := read(raw, off, &block[len(block)-1]); err != nil {
			return nil, &entryError{n, err}
		}
		n++
		switch c, ok := s.peek(); {
		case !ok:
			return nil, s.end()
		case c == ',':
			s.pos++
			continue
		case c == ']':
			s.pos++
		default:
			return nil, s.errorf("invalid character %q after array element", c)
		}
		break
	}
	out := make([]T, 0, n)
	for _, b := range append(blocks, block) {
		out = append(out, b...)
	}
	return out, nil
}

// interner keeps one copy of each repeated string, and of each repeated
// label or attribute map: artifacts of one backfill carry the same labels,
// and jobs, runs, credentials and alerts often the same attributes. A map
// of a loaded estate may so be shared by many artifacts: nothing after
// loading writes to them (collectors build them, rules only read).
// Only what repeats across entries is interned: URIs, names and paths are
// one per entry.
type interner struct {
	// backfills and records, when set, keep each plan and record decoded
	// by its JSON text, for estates read together: the shards of collect
	// --shard each carry every plan and record, and decoding them once
	// instead of N times is most of what merging N shards costs beyond one
	// file. Two estates then share one decoded entry (its slices and
	// pointers too); nothing changes a loaded entry, and the merge keeps
	// one of equal entries anyway.
	backfills map[string]model.Backfill
	records   map[string]model.DecisionRecord
	strs      map[string]string
	maps      map[string]*model.Tags // by content, see mapKey
	key       []byte
	pairs     []pair
}

type pair struct{ k, v []byte }

// decodeOnce decodes raw into *v and interns it with tidy, or takes the
// entry decoded from the same text before when seen (nil: no sharing)
// holds it.
func decodeOnce[T any](seen map[string]T, raw []byte, off int64, v *T, tidy func(*T)) error {
	if d, ok := seen[string(raw)]; ok {
		*v = d
		return nil
	}
	err := unmarshalAt(raw, off, v)
	tidy(v)
	if err == nil && seen != nil {
		seen[string(raw)] = *v
	}
	return err
}

// newSharedInterner interns and keeps decoded entries across estates.
func newSharedInterner() *interner {
	in := newInterner()
	in.backfills, in.records = map[string]model.Backfill{}, map[string]model.DecisionRecord{}
	return in
}

func newInterner() *interner {
	return &interner{strs: map[string]string{}, maps: map[string]*model.Tags{}}
}

// s interns *p.
func (in *interner) s(p *string) {
	if *p == "" {
		return
	}
	if v, ok := in.strs[*p]; ok {
		*p = v
		return
	}
	in.strs[*p] = *p
}

// str returns the interned copy of b.
func (in *interner) str(b []byte) string {
	if s, ok := in.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	in.strs[s] = s
	return s
}

// shortValue is the longest attribute or label value interned: flags,
// counts, states and ids repeat; principals and conditions mostly do not.
const shortValue = 24

// maxShared is the most entries a map may have to be shared: larger ones
// are rare, and not worth sorting.
const maxShared = 8

func (in *interner) value(v []byte) string {
	if len(v) <= shortValue {
		return in.str(v)
	}
	return string(v)
}

// strmap returns the one copy of tags with t's content (for an entry
// encoding/json read).
func (in *interner) strmap(t *model.Tags) *model.Tags {
	if t.Len() == 0 {
		return nil
	}
	in.pairs = in.pairs[:0]
	for k, v := range t.All() {
		in.pairs = append(in.pairs, pair{[]byte(k), []byte(v)})
	}
	shared, _ := in.sharedMap(in.pairs) // tags have no key twice
	return shared
}

// sharedMap returns the one copy of the map of these entries, made if it
// is the first; false when a key is given twice (encoding/json's rules
// then apply).
func (in *interner) sharedMap(pairs []pair) (*model.Tags, bool) {
	if len(pairs) == 0 {
		return nil, true
	}
	build := func() *model.Tags { // pairs are sorted by then
		kv := make([]string, 0, 2*len(pairs))
		for _, p := range pairs {
			kv = append(kv, in.str(p.k), in.value(p.v))
		}
		return model.SortedTags(kv)
	}
	in.key = mapKey(in.key[:0], pairs) // sorts pairs
	for i := 1; i < len(pairs); i++ {
		if bytes.Equal(pairs[i].k, pairs[i-1].k) {
			return nil, false
		}
	}
	if len(pairs) > maxShared {
		return build(), true
	}
	if m, ok := in.maps[string(in.key)]; ok {
		return m, true
	}
	m := build()
	in.maps[string(in.key)] = m
	return m, true
}

// mapKey sorts the entries by key and appends them, each key and value
// after its length, so that two different maps never make the same key.
func mapKey(b []byte, pairs []pair) []byte {
	slices.SortFunc(pairs, func(x, y pair) int { return bytes.Compare(x.k, y.k) })
	for _, p := range pairs {
		b = strconv.AppendInt(b, int64(len(p.k)), 10)
		b = append(b, ':')
		b = append(b, p.k...)
		b = strconv.AppendInt(b, int64(len(p.v)), 10)
		b = append(b, ':')
		b = append(b, p.v...)
	}
	return b
}

func (in *interner) artifact(a *model.Artifact) {
	kind, state := string(a.Kind), string(a.State)
	in.s(&kind)
	in.s(&state)
	a.Kind, a.State = model.Kind(kind), model.State(state)
	for _, p := range []*string{&a.System, &a.Source, &a.Scope, &a.BackfillID, &a.Owner, &a.Correlation} {
		in.s(p)
	}
	a.Labels = in.strmap(a.Labels)
	a.Attributes = in.strmap(a.Attributes)
}

func (in *interner) backfill(b *model.Backfill) {
	for _, p := range []*string{&b.JobID, &b.Owner, &b.Approver, &b.Pool, &b.CleanupOwner, &b.Source.Source, &b.ValidationSource} {
		in.s(p)
	}
	for i := range b.SideEffects {
		in.s(&b.SideEffects[i])
	}
}

func (in *interner) record(r *model.DecisionRecord) {
	in.s(&r.ApprovingOwner)
	in.s(&r.Source.Source)
}
