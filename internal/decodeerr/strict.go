package decodeerr

import (
	"fmt"
	"reflect"

	"gopkg.in/yaml.v3"
)

// Weak finds, in a YAML node about to be decoded into t by mapstructure
// (keys by `mapstructure` tags), the values a weakly typed decode would
// take without a word though the person meant something else: one value
// where a list belongs (`schemas: shop` read as [shop]) and a number or
// true/false where text belongs (`plans: 5`, `name: no`). Weak typing stays
// for env vars ("a,b" lists); a file says what it means. Each problem is
// at the line of its key; unknown keys and other wrong values are left to
// the decoder. prefix starts every key path ("" at the top).
func Weak(node *yaml.Node, t reflect.Type, prefix string) []*Problem {
	w := walker{budget: maxNodes}
	w.weak(node, t, prefix, 0, 0)
	sortProblems(w.ps)
	return w.ps
}

func (w *walker) weak(n *yaml.Node, t reflect.Type, path string, line, depth int) {
	if n == nil || t == nil || depth > maxDepth || w.budget <= 0 {
		return
	}
	w.budget--
	if n.Kind == yaml.AliasNode {
		w.weak(n.Alias, t, path, line, depth+1)
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if line == 0 {
		line = n.Line
	}
	if isNull(n) || t == durationType || t == timeType {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if ft, ok := field(t, k.Value, "mapstructure"); ok {
				w.weak(n.Content[i+1], ft, join(path, k.Value), k.Line, depth+1)
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			w.weak(n.Content[i+1], t.Elem(), join(path, k.Value), k.Line, depth+1)
		}
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.ScalarNode {
			msg := "expected " + expected(t, "mapstructure") + ", got " + gotNode(n)
			if n.Tag == "!!str" {
				msg += fmt.Sprintf(" (write [%s] for a list of one)", n.Value)
			} else {
				msg = "expected " + expected(t, "mapstructure") + ", got " + n.Value
			}
			w.ps = append(w.ps, &Problem{Key: path, Line: line, Msg: msg})
			return
		}
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, item := range n.Content {
			w.weak(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), item.Line, depth+1)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
			return
		}
		switch n.Tag {
		case "!!int", "!!float", "!!bool":
			what := "the number"
			if n.Tag == "!!bool" {
				what = "the value"
			}
			w.ps = append(w.ps, &Problem{Key: path, Line: line,
				Msg: fmt.Sprintf("expected %s, got %s %s (quote it if you mean the text: %q)", expected(t, "mapstructure"), what, n.Value, n.Value)})
		}
	}
}
