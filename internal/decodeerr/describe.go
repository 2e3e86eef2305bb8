package decodeerr

import (
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

// Describer is implemented by a type whose values the generic wording
// would describe by their Go shape (a date held in a struct): it says
// what a person should write instead.
type Describer interface {
	ExpectedValue() string
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	timeType     = reflect.TypeOf(time.Time{})
)

// maxListedKeys bounds the keys named in one message.
const maxListedKeys = 10

// expected says in words what a value of type t looks like; tag is the
// struct tag that names keys ("yaml" or "mapstructure").
func expected(t reflect.Type, tag string) string {
	if d, ok := describer(t); ok {
		return d.ExpectedValue()
	}
	switch t {
	case durationType:
		return "a duration such as 30m, 72h or 7d"
	case timeType:
		return "a date (2026-03-01) or timestamp (2026-03-01T12:00:00Z)"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return expected(t.Elem(), tag)
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		e := t.Elem()
		for e.Kind() == reflect.Pointer {
			e = e.Elem()
		}
		switch {
		case e.Kind() == reflect.String:
			return "a list of text values"
		case e.Kind() == reflect.Struct && e != timeType:
			return "a list of mappings with keys " + joinList(limit(knownKeys(e, tag)))
		}
		return "a list of values, each " + expected(e, tag)
	case reflect.Map:
		if t.Elem().Kind() == reflect.String {
			return "a mapping of keys to text values"
		}
		return "a mapping"
	case reflect.Struct:
		return "a mapping with keys " + joinList(limit(knownKeys(t, tag)))
	}
	return "a value"
}

func describer(t reflect.Type) (Describer, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// *T has the methods of T too.
	d, ok := reflect.New(t).Interface().(Describer)
	return d, ok
}

// got shows a value as written: text in full up to a sane length (the
// YAML decoder cuts it to a few characters), the shape of anything else.
func got(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case string:
		return quote(x)
	case []any, []string:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return fmt.Sprint(v)
}

// maxValueRunes caps a value quoted in a message: enough for any real
// key's value, short of a pasted document.
const maxValueRunes = 200

func quote(s string) string {
	if utf8.RuneCountInString(s) > maxValueRunes {
		s = string([]rune(s)[:maxValueRunes]) + "..."
	}
	return fmt.Sprintf("%q", s)
}

// knownKeys lists the keys a struct takes, in declaration order, with the
// keys of embedded (squashed, inlined) structs in their place.
func knownKeys(t reflect.Type, tag string) []string {
	var out []string
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts := fieldName(f, tag)
		switch {
		case name == "-":
		case embedded(opts):
			out = append(out, knownKeys(f.Type, tag)...)
		case f.IsExported():
			out = append(out, name)
		}
	}
	return out
}

// field finds the struct field that key names; ok is false when none does.
// A struct that inlines a map takes any key: the field is then the map.
func field(t reflect.Type, key, tag string) (reflect.Type, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	var catchAll reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts := fieldName(f, tag)
		switch {
		case name == "-":
		case embedded(opts):
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Map {
				catchAll = ft.Elem()
				continue
			}
			if sub, ok := field(ft, key, tag); ok {
				return sub, true
			}
		case strings.Contains(opts, "remain"):
			catchAll = f.Type.Elem()
		case f.IsExported() && strings.EqualFold(name, key):
			return f.Type, true
		}
	}
	if catchAll != nil {
		return catchAll, true
	}
	return nil, false
}

func fieldName(f reflect.StructField, tag string) (name, opts string) {
	name, opts, _ = strings.Cut(f.Tag.Get(tag), ",")
	if name == "" && !strings.Contains(opts, "squash") && !strings.Contains(opts, "inline") {
		if tag == "yaml" {
			name = strings.ToLower(f.Name)
		} else {
			name = f.Name
		}
	}
	return name, opts
}

func embedded(opts string) bool {
	return strings.Contains(opts, "squash") || strings.Contains(opts, "inline")
}

func limit(keys []string) []string {
	if len(keys) > maxListedKeys {
		return append(keys[:maxListedKeys:maxListedKeys], "...")
	}
	return keys
}

func joinList(keys []string) string { return strings.Join(keys, ", ") }
