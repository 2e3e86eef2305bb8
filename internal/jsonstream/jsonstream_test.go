package jsonstream

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// fill sets every field reachable from v to a value that is not zero, with
// characters encoding/json escapes in every string, so a field the
// streaming writer forgot or encoded differently shows up.
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(`a <b> & "c" \ é` + "\u2028\t")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int8:
		if v.Type() == reflect.TypeFor[model.Severity]() {
			v.SetInt(int64(model.SeverityHigh))
		} else {
			v.SetInt(3)
		}
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		if depth > 4 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		if depth > 4 {
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 30, 1, 2, 3, 4, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	}
}

func same(t *testing.T, name string, v any) {
	t.Helper()
	want, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	var got bytes.Buffer
	if err := Encode(&got, v); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("%s: streamed JSON differs from json.MarshalIndent:\n got: %s\nwant: %s", name, got.Bytes(), want)
	}
}

// Encode writes what json.MarshalIndent does, for the report and the
// estate filled in every field, empty, and with empty lists.
func TestEncodeMatchesMarshalIndent(t *testing.T) {
	var full model.Report
	fill(reflect.ValueOf(&full).Elem(), 0)
	same(t, "full report", &full)
	same(t, "zero report", &model.Report{})
	same(t, "empty lists", &model.Report{Backfills: []model.BackfillReport{}, Findings: []model.Finding{}, Problems: []string{}})
	var est model.Estate
	fill(reflect.ValueOf(&est).Elem(), 0)
	same(t, "full estate", &est)
	same(t, "zero estate", &model.Estate{})
	same(t, "not a struct", &[]int{1, 2})
	same(t, "a map", map[string]int{"a": 1})
}

// A value encoding/json cannot marshal is an error, not a half-written
// document passed off as whole.
func TestEncodeError(t *testing.T) {
	r := &model.Report{Findings: []model.Finding{{RuleID: "BF001"}}} // severity 0 is invalid
	if err := Encode(&bytes.Buffer{}, r); err == nil {
		t.Error("a finding without a severity was written")
	}
}

// Nested objects and arrays opened by hand indent like MarshalIndent.
func TestNested(t *testing.T) {
	type inner struct {
		A []int          `json:"a"`
		B map[string]int `json:"b"`
	}
	want, _ := json.MarshalIndent(map[string]any{"runs": []any{map[string]any{"results": []inner{{A: []int{1}}, {}}, "tool": "x"}, map[string]any{}}}, "", "  ")
	var got bytes.Buffer
	s := New(&got)
	o := s.Object()
	runs := o.Array("runs")
	run := runs.Object()
	res := run.Array("results")
	res.Elem(&inner{A: []int{1}})
	res.Elem(inner{})
	res.End()
	run.Field("tool", "x")
	run.End()
	runs.Object().End()
	runs.End()
	o.End()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want)+"\n" {
		t.Errorf("got:\n%s\nwant:\n%s", got.String(), want)
	}
}

// The indenting matches json.Indent on what encoding/json writes: strings
// with escaped quotes and backslashes, empty objects and arrays, scalars,
// and nesting deeper than the run of spaces kept for indents.
func TestIndent(t *testing.T) {
	type wrap struct {
		V any `json:"v"`
	}
	var deep any = "bottom"
	for i := range 45 {
		if i%2 == 0 {
			deep = []any{deep, map[string]any{}, []int{}}
		} else {
			deep = map[string]any{"k": deep, "e": []any{}}
		}
	}
	for name, v := range map[string]any{
		"strings": []string{`a"b`, `a\`, `\"`, `\\"{[,:]}"`, "é\u2028<>&", ""},
		"scalars": []any{1, -2.5e10, true, false, nil, 0},
		"empties": map[string]any{"a": map[string]any{}, "b": []any{}, "c": []any{map[string]any{}, []any{}}},
		"deep":    deep,
		"scalar":  "just a string",
	} {
		same(t, name, &wrap{v})
	}
}

// AppendString writes what json.Marshal writes for a string.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "a", `"`, `\`, `\"`, `a"b\c"`, `"\\"`, "<>&", "tab\there", "é", "\u2028", "\x7f", "\x00", string([]byte{0xff})} {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	}
}
