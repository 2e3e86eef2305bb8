package decodeerr

import (
	"errors"
	"reflect"
	"strings"

	"github.com/go-viper/mapstructure/v2"
)

// Mapstructure rewrites a mapstructure decode error into one Problem per
// key (joined with errors.Join): target is what was being decoded into
// (a pointer is fine), so an unknown key gets the nearest known one and a
// value of the wrong type says what was expected, with the value. Errors
// from decode hooks (a bad duration) keep their own words, under the key.
func Mapstructure(err error, target any) error {
	if err == nil {
		return nil
	}
	root := reflect.TypeOf(target)
	for root != nil && root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	var ps []*Problem
	for _, de := range leaves(err) {
		ps = append(ps, problems(de, root)...)
	}
	if len(ps) == 0 {
		return errors.New(strings.TrimPrefix(err.Error(), "decoding failed due to the following error(s):\n\n"))
	}
	sortProblems(ps)
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// leaves flattens the tree of joined errors mapstructure returns into its
// per-key DecodeErrors (the innermost one of a chain).
func leaves(err error) []*mapstructure.DecodeError {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*mapstructure.DecodeError
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	de, ok := err.(*mapstructure.DecodeError)
	if !ok {
		if inner := errors.Unwrap(err); inner != nil {
			return leaves(inner) // "decoding failed due to...: %w"
		}
		return nil
	}
	// A DecodeError may wrap further ones (a squashed struct).
	if inner := leaves(de.Unwrap()); len(inner) > 0 {
		return inner
	}
	return []*mapstructure.DecodeError{de}
}

func problems(de *mapstructure.DecodeError, root reflect.Type) []*Problem {
	name := de.Name()
	segs := segments(name)
	t, ok := typeAt(root, segs)
	if !ok && root != nil && name == root.String() {
		// mapstructure names the top level by its Go type.
		t, ok, segs = root, true, nil
	}
	key := display(segs, root)
	inner := de.Unwrap()
	if msg := inner.Error(); strings.HasPrefix(msg, "has invalid keys: ") {
		var known []string
		if ok {
			known = knownKeys(t, "mapstructure")
		}
		var out []*Problem
		for _, k := range strings.Split(strings.TrimPrefix(msg, "has invalid keys: "), ", ") {
			out = append(out, &Problem{Key: join(key, k), Msg: unknownKey(k, known)})
		}
		return out
	}
	var pe *mapstructure.ParseError
	var ue *mapstructure.UnconvertibleTypeError
	switch {
	case errors.As(inner, &pe) && ok:
		return []*Problem{{Key: key, Msg: "expected " + expected(t, "mapstructure") + ", got " + got(pe.Value)}}
	case errors.As(inner, &ue) && ok:
		return []*Problem{{Key: key, Msg: "expected " + expected(t, "mapstructure") + ", got " + got(ue.Value)}}
	}
	return []*Problem{{Key: key, Msg: inner.Error()}}
}

// segments splits mapstructure's name for a key ("github.token",
// "sources[0]", "owners[alice@example.com].github") into its parts; a
// bracketed part may hold dots.
func segments(name string) []string {
	var out []string
	for name != "" {
		switch {
		case name[0] == '.':
			name = name[1:]
		case name[0] == '[':
			end := strings.IndexByte(name, ']')
			if end < 0 {
				return append(out, name)
			}
			out = append(out, name[:end+1])
			name = name[end+1:]
		default:
			end := strings.IndexAny(name, ".[")
			if end < 0 {
				end = len(name)
			}
			out = append(out, name[:end])
			name = name[end:]
		}
	}
	return out
}

// typeAt follows the parts of a key from root to the type they name.
func typeAt(t reflect.Type, segs []string) (reflect.Type, bool) {
	if t == nil {
		return nil, false
	}
	for _, s := range segs {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case strings.HasPrefix(s, "["):
			if k := t.Kind(); k != reflect.Map && k != reflect.Slice && k != reflect.Array {
				return nil, false
			}
			t = t.Elem()
		case t.Kind() == reflect.Struct:
			ft, ok := field(t, s, "mapstructure")
			if !ok {
				return nil, false
			}
			t = ft
		default:
			return nil, false
		}
	}
	return t, true
}

// display writes a key as the file spells it: map keys joined with dots
// (owners.alice@example.com.github), list items with their index.
func display(segs []string, root reflect.Type) string {
	var b strings.Builder
	t := root
	for _, s := range segs {
		isMap := false
		if t != nil {
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			isMap = t.Kind() == reflect.Map
			if next, ok := typeAt(t, []string{s}); ok {
				t = next
			} else {
				t = nil
			}
		}
		switch {
		case strings.HasPrefix(s, "[") && !isMap:
			b.WriteString(s)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(strings.Trim(s, "[]"))
		}
	}
	return b.String()
}
