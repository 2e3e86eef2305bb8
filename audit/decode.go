package audit

import (
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
// It reads what json.Unmarshal into a model.Estate would: keys match case-
// insensitively, unknown keys are skipped, a later key wins, null leaves a
// list nil (which LoadEstate refuses). A null document is an empty estate.
func decodeEstate(r io.Reader) (*model.Estate, error) {
	dec := json.NewDecoder(r)
	var est model.Estate
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, errEmpty
	}
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return &est, nil
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("expected a JSON object, found %s", describe(tok))
	}
	in := newInterner()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // json.Decoder only returns strings as object keys
		switch {
		case strings.EqualFold(key, "version"):
			err = dec.Decode(&est.Version)
		case strings.EqualFold(key, "collected_at"):
			err = dec.Decode(&est.CollectedAt)
		case strings.EqualFold(key, "backfills"):
			est.Backfills, err = decodeList(dec, in.backfill)
		case strings.EqualFold(key, "artifacts"):
			est.Artifacts, err = decodeList(dec, in.artifact)
		case strings.EqualFold(key, "records"):
			est.Records, err = decodeList(dec, in.record)
		case strings.EqualFold(key, "coverage"):
			est.Coverage, err = decodeList(dec, func(*model.Coverage) {})
		default:
			err = dec.Decode(new(json.RawMessage))
		}
		if err != nil {
			return nil, keyError(key, err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("unexpected %s after the estate object", describe(tok))
	}
	return &est, nil
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
	var se *json.SyntaxError
	var ee *entryError
	switch {
	case errors.As(err, &se):
		return err
	case errors.As(err, &ee):
		return fmt.Errorf("%s%w", key, err)
	}
	return fmt.Errorf("%s: %w", key, err)
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// decodeList reads a JSON list (or null) an entry at a time into blocks
// that are never moved, then copies them once into a slice of the exact
// length: appending to one slice would copy every entry several times and
// leave up to a quarter of it unused.
func decodeList[T any](dec *json.Decoder, fix func(*T)) ([]T, error) {
	tok, err := dec.Token()
	switch {
	case err != nil:
		return nil, err
	case tok == nil:
		return nil, nil
	case tok != json.Delim('['):
		return nil, fmt.Errorf("expected a list, found %s", describe(tok))
	}
	var blocks [][]T
	block := make([]T, 0, 256)
	n := 0
	for dec.More() {
		if len(block) == cap(block) {
			blocks = append(blocks, block)
			block = make([]T, 0, min(2*cap(block), 1<<16))
		}
		block = block[:len(block)+1]
		e := &block[len(block)-1]
		if err := dec.Decode(e); err != nil {
			return nil, &entryError{n, err}
		}
		fix(e)
		n++
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, err
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
	strs map[string]string
	maps map[string]map[string]string // by content, see mapKey
	key  []byte
}

func newInterner() *interner {
	return &interner{strs: map[string]string{}, maps: map[string]map[string]string{}}
}

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

// shortValue is the longest attribute or label value interned: flags,
// counts, states and ids repeat; principals and conditions mostly do not.
const shortValue = 24

// strmap returns the one copy of a map with m's content.
func (in *interner) strmap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	share := len(m) <= 8 // larger maps are rare, and not worth sorting
	if share {
		in.key = mapKey(in.key[:0], m)
		if shared, ok := in.maps[string(in.key)]; ok {
			return shared
		}
	}
	for k, v := range m {
		ik := k
		in.s(&ik)
		if len(v) <= shortValue {
			in.s(&v)
		}
		m[ik] = v // same key: the entry is updated in place
	}
	if share {
		in.maps[string(in.key)] = m
	}
	return m
}

// mapKey appends m's entries in key order, each key and value after its
// length, so that two different maps never make the same key.
func mapKey(b []byte, m map[string]string) []byte {
	var keys [8]string
	n := 0
	for k := range m {
		keys[n] = k
		n++
	}
	slices.Sort(keys[:n])
	for _, k := range keys[:n] {
		b = strconv.AppendInt(b, int64(len(k)), 10)
		b = append(b, ':')
		b = append(b, k...)
		v := m[k]
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, ':')
		b = append(b, v...)
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
