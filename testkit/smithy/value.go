package smithy

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Values inside the kit, whatever the protocol: a structure, union or map
// is a map[string]any (keyed by member names, or by the map's keys), a list
// []any, a string or enum string, an integer int64, a float float64, a
// boolean bool, a timestamp time.Time, a blob []byte, a document as decoded.
// Call.Input holds them, and a Handler's output is read into them.

// reader checks a value from outside against a shape and turns it into the
// kit's form: a JSON request body, or a handler's Go values.
type reader struct {
	wire     bool   // a JSON body decoded with UseNumber, rather than Go values
	jsonName bool   // keys are the members' jsonName where they have one (restJson1)
	time     string // the timestamp format where the model sets none
}

var timeType = reflect.TypeOf(time.Time{})

// value reads v as shape s; nil (JSON null, a nil pointer) reads as absent.
func (r reader) value(s *shape, format string, v any, at string) (any, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return nil, nil
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return nil, nil
	}
	switch s.typ {
	case "structure", "union":
		return r.structure(s, rv, at)
	case "list", "set":
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			return nil, wrongType(at, "a list", rv.Interface())
		}
		out := make([]any, 0, rv.Len())
		for i := range rv.Len() {
			iat := fmt.Sprintf("%s[%d]", at, i)
			item, err := r.value(s.item.shape, s.item.timestamp, rv.Index(i).Interface(), iat)
			if err != nil {
				return nil, err
			}
			if item == nil {
				return nil, fmt.Errorf("%s: null in a list", iat)
			}
			out = append(out, item)
		}
		return out, nil
	case "map":
		entries, ok := mapEntries(rv)
		if !ok {
			return nil, wrongType(at, "a map", rv.Interface())
		}
		out := map[string]any{}
		for _, k := range sortedKeys(entries) {
			kat := fmt.Sprintf("%s[%q]", at, k)
			if err := checkEnum(s.key.shape, k, kat); err != nil {
				return nil, err
			}
			v, err := r.value(s.value.shape, s.value.timestamp, entries[k], kat)
			if err != nil {
				return nil, err
			}
			if v != nil {
				out[k] = v
			}
		}
		return out, nil
	case "document":
		return rv.Interface(), nil
	}
	return r.scalar(s, cmp.Or(format, r.time), rv, at)
}

func (r reader) structure(s *shape, rv reflect.Value, at string) (any, error) {
	entries, ok := mapEntries(rv)
	if !ok {
		return nil, wrongType(at, "a structure", rv.Interface())
	}
	byKey := map[string]*member{}
	for _, m := range s.members {
		byKey[cmp.Or(r.jsonKey(m), m.name)] = m
	}
	out := map[string]any{}
	for _, k := range sortedKeys(entries) {
		m := byKey[k]
		if m == nil {
			return nil, fmt.Errorf("%sunknown member %q", prefix(at), k)
		}
		v, err := r.value(m.shape, m.timestamp, entries[k], join(at, m.name))
		if err != nil {
			return nil, err
		}
		if v != nil {
			out[m.name] = v
		}
	}
	if err := missingRequired(s, out, at); err != nil {
		return nil, err
	}
	if s.typ == "union" && len(out) != 1 {
		return nil, fmt.Errorf("%sa union sets exactly one member, not %d", prefix(at), len(out))
	}
	return out, nil
}

func (r reader) jsonKey(m *member) string {
	if r.jsonName {
		return m.jsonName
	}
	return ""
}

// integerBits is the size of each integer type, for its range.
var integerBits = map[string]int{"byte": 8, "short": 16, "integer": 32, "long": 64, "bigInteger": 64}

func (r reader) scalar(s *shape, format string, rv reflect.Value, at string) (any, error) {
	v := rv.Interface()
	num, isNum := v.(json.Number) // a JSON number; a string kind to reflect
	isNum = isNum && r.wire
	switch s.typ {
	case "string":
		if rv.Kind() != reflect.String || isNum {
			return nil, wrongType(at, "a string", v)
		}
		return rv.String(), checkEnum(s, rv.String(), at)
	case "boolean":
		if rv.Kind() != reflect.Bool {
			return nil, wrongType(at, "a boolean", v)
		}
		return rv.Bool(), nil
	case "byte", "short", "integer", "long", "bigInteger":
		var n int64
		var err error
		switch {
		case isNum:
			n, err = num.Int64()
		case !r.wire && rv.CanInt():
			n = rv.Int()
		case !r.wire && rv.CanUint() && rv.Uint() <= 1<<63-1:
			n = int64(rv.Uint())
		default:
			err = strconv.ErrSyntax
		}
		if b := integerBits[s.typ]; err != nil || n < -1<<(b-1) || n > 1<<(b-1)-1 {
			return nil, wrongType(at, "an "+s.typ, v)
		}
		return n, nil
	case "float", "double", "bigDecimal":
		switch {
		case isNum:
			if f, err := num.Float64(); err == nil {
				return f, nil
			}
		case !r.wire && rv.CanFloat():
			return rv.Float(), nil
		case !r.wire && rv.CanInt():
			return float64(rv.Int()), nil
		}
		return nil, wrongType(at, "a number", v)
	case "timestamp":
		if !r.wire {
			if rv.Type() != timeType {
				return nil, wrongType(at, "a time.Time", v)
			}
			return v, nil
		}
		if format == "epoch-seconds" && !isNum || format != "epoch-seconds" && (isNum || rv.Kind() != reflect.String) {
			return nil, wrongType(at, "a timestamp ("+format+")", v)
		}
		return fromText(s, format, rv.String(), at)
	case "blob":
		switch b := v.(type) {
		case []byte:
			if !r.wire {
				return b, nil
			}
		case string:
			if !r.wire {
				return []byte(b), nil
			}
			return fromText(s, format, b, at)
		}
		return nil, wrongType(at, "a blob", v)
	}
	return nil, fmt.Errorf("%s: shape %s of type %s is not supported by this kit", at, s.name, s.typ)
}

// fromText reads a value sent as text: an awsQuery form field, a URI label,
// a query parameter or a header.
func fromText(s *shape, format, text, at string) (any, error) {
	switch s.typ {
	case "string":
		return text, checkEnum(s, text, at)
	case "boolean":
		if b, err := strconv.ParseBool(text); err == nil && (text == "true" || text == "false") {
			return b, nil
		}
		return nil, wrongType(at, "a boolean", text)
	case "byte", "short", "integer", "long", "bigInteger":
		n, err := strconv.ParseInt(text, 10, integerBits[s.typ])
		if err != nil {
			return nil, wrongType(at, "an "+s.typ, text)
		}
		return n, nil
	case "float", "double", "bigDecimal":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, wrongType(at, "a number", text)
		}
		return f, nil
	case "timestamp":
		var t time.Time
		var err error
		switch format {
		case "epoch-seconds":
			var f float64
			if f, err = strconv.ParseFloat(text, 64); err == nil {
				t = time.Unix(0, int64(f*1e9)).UTC()
			}
		case "http-date":
			t, err = http.ParseTime(text)
		default:
			t, err = time.Parse(time.RFC3339Nano, text)
		}
		if err != nil {
			return nil, wrongType(at, "a timestamp ("+cmp.Or(format, "date-time")+")", text)
		}
		return t, nil
	case "blob":
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return nil, wrongType(at, "base64", text)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s: a %s cannot be sent as text", at, s.typ)
}

// formatTime writes a timestamp in a timestampFormat (date-time when none).
func formatTime(t time.Time, format string) string {
	switch format {
	case "epoch-seconds":
		return strconv.FormatFloat(float64(t.UnixMilli())/1e3, 'f', -1, 64)
	case "http-date":
		return t.UTC().Format(http.TimeFormat)
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func checkEnum(s *shape, v, at string) error {
	if len(s.enum) == 0 || slices.Contains(s.enum, v) {
		return nil
	}
	values := s.enum
	if len(values) > 12 {
		values = append(values[:12:12], "...")
	}
	return fmt.Errorf("%s: %q is not one of the model's values (%s)", at, v, strings.Join(values, ", "))
}

func missingRequired(s *shape, got map[string]any, at string) error {
	for _, m := range s.sortedMembers() {
		if _, ok := got[m.name]; m.required && !ok {
			return fmt.Errorf("%smissing required member %s", prefix(at), m.name)
		}
	}
	return nil
}

func wrongType(at, want string, v any) error {
	var got string
	switch x := v.(type) {
	case json.Number:
		got = string(x)
	case string:
		got = strconv.Quote(x)
	case []any:
		got = "a list"
	case map[string]any:
		got = "an object"
	default:
		got = fmt.Sprintf("%v (%T)", v, v)
	}
	if len(got) > 80 {
		got = got[:80] + "..."
	}
	return fmt.Errorf("%s: want %s, got %s", at, want, got)
}

// mapEntries reads a map with string keys (of any string type).
func mapEntries(rv reflect.Value) (map[string]any, bool) {
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		out[it.Key().String()] = it.Value().Interface()
	}
	return out, true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// join and prefix build the path of a value in an error: Tags[0].Key.
func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

func prefix(at string) string {
	if at == "" {
		return ""
	}
	return at + ": "
}
