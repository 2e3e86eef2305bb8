package records

import (
	"errors"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/internal/decodeerr"
)

var (
	planDocType   = reflect.TypeOf(planDoc{})
	recordDocType = reflect.TypeOf(recordDoc{})
)

// explain turns the strict decoder's error for doc into one PlanError per
// bad key, in the author's words: the key's path, the value, what was
// expected, the nearest known key ("did you mean completed_at?"), where
// the decoder says `cannot unmarshal !!str into records.rangeDoc` and
// stops at the first. Should the walk find nothing, the decoder's own
// error is kept. offset is added to every line (the lines above a
// record's front matter).
func explain(path, id string, doc *yaml.Node, t reflect.Type, decodeErr error, offset int) error {
	problems := decodeerr.YAML(doc, t, "")
	if len(problems) == 0 {
		pe := &PlanError{Path: path, ID: id}
		pe.Line, pe.Err = splitLine(cleanYAMLError(decodeErr))
		if pe.Line > 0 {
			pe.Line += offset
		}
		return pe
	}
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = &PlanError{Path: path, Line: p.Line + offset, Key: p.Key, ID: id, Err: plainError(p.Msg)}
	}
	return errors.Join(errs...)
}

// split returns the PlanErrors an error joins, or the error alone.
func split(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// splitLine takes "line N: msg" apart (decodeerr.YAMLLine).
func splitLine(err error) (int, error) {
	if n, what := decodeerr.YAMLLine(err.Error(), nil); n > 0 {
		return n, plainError(what)
	}
	return 0, err
}

type plainError string

func (e plainError) Error() string { return string(e) }

// cleanYAMLError drops the yaml package's prefixes.
func cleanYAMLError(err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n  ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	return plainError(msg)
}

// lineOf returns the line of key in a mapping node, or the mapping's line.
func lineOf(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return m.Line
}

// scalarAt returns a top-level scalar value of a mapping node.
func scalarAt(m *yaml.Node, key string) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.ScalarNode {
			return m.Content[i+1].Value
		}
	}
	return ""
}
