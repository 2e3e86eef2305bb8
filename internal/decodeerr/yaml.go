package decodeerr

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAML checks a YAML node against the struct (or other type) it is to be
// decoded into, by `yaml` tags, and returns every problem with the key's
// path and line: unknown keys with the nearest known one, values of the
// wrong shape (a date where a mapping of start and end belongs, "two"
// where a number does) with the value in full and what was expected. A
// type that implements yaml.Unmarshaler is checked by decoding the node
// into it; its error is kept, and its ExpectedValue (Describer) used when
// it has one. prefix starts every key path ("" at the top).
func YAML(node *yaml.Node, t reflect.Type, prefix string) []*Problem {
	w := walker{budget: maxNodes}
	w.walk(node, t, prefix, 0)
	sortProblems(w.ps)
	return w.ps
}

// maxDepth bounds the walk (plan and record types nest a few levels), and
// maxNodes its length: aliases can make a small file a huge tree.
const (
	maxDepth = 32
	maxNodes = 100_000
)

type walker struct {
	ps     []*Problem
	budget int
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string, depth int) {
	if n == nil || depth > maxDepth || w.budget <= 0 {
		return
	}
	w.budget--
	ps := &w.ps
	if n.Kind == yaml.AliasNode {
		w.walk(n.Alias, t, path, depth+1)
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isNull(n) {
		return // an empty value leaves the zero value
	}
	bad := func(detail string) {
		msg := "expected " + expected(t, "yaml") + ", got " + gotNode(n)
		if detail != "" {
			msg += " (" + detail + ")"
		}
		*ps = append(*ps, &Problem{Key: path, Line: n.Line, Msg: msg})
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			if _, ok := describer(t); ok {
				bad("")
			} else {
				*ps = append(*ps, &Problem{Key: path, Line: n.Line, Msg: lineless(err)})
			}
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == timeType {
			break
		}
		if n.Kind != yaml.MappingNode {
			bad("")
			return
		}
		known := knownKeys(t, "yaml")
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := field(t, k.Value, "yaml")
			if !ok {
				*ps = append(*ps, &Problem{Key: join(path, k.Value), Line: k.Line, Msg: unknownKey(k.Value, known)})
				continue
			}
			w.walk(v, ft, join(path, k.Value), depth+1)
		}
		return
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			bad("")
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.walk(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), depth+1)
		}
		return
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			bad("")
			return
		}
		for i, item := range n.Content {
			w.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), depth+1)
		}
		return
	case reflect.Interface:
		return
	}
	// A scalar: the decoder says whether it converts.
	if n.Kind != yaml.ScalarNode {
		bad("")
		return
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		bad("")
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func gotNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return quote(n.Value)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// lineless drops the "line N: " an Unmarshaler may put in front of its
// error: the problem carries the line.
func lineless(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ": "); i > 0 && strings.Trim(rest[:i], "0123456789") == "" {
			return rest[i+2:]
		}
	}
	return msg
}
