package remedy

import (
	"bytes"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// doc builds a YAML mapping for a template, key by key in the order
// given, with values encoded by yaml.v3: a purpose or query holding a
// colon, a quote or a newline stays one value. An unknown value is left
// empty with a comment saying what goes there.
type doc struct{ root yaml.Node }

func newDoc() *doc { return &doc{root: yaml.Node{Kind: yaml.MappingNode}} }

func (d *doc) add(key string, value *yaml.Node, comment string) {
	k := &yaml.Node{Kind: yaml.ScalarNode, Value: key}
	value.LineComment = comment
	d.root.Content = append(d.root.Content, k, value)
}

// str adds a string; empty, it is left blank with the todo as a comment.
func (d *doc) str(key, value, todo string) {
	if value == "" {
		d.add(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""}, "TODO: "+todo)
		return
	}
	n := &yaml.Node{}
	_ = n.Encode(value)
	d.add(key, n, "")
}

// set adds a literal scalar bfaudit chose (true, 1, an enum value).
func (d *doc) set(key, value, comment string) {
	d.add(key, &yaml.Node{Kind: yaml.ScalarNode, Value: value}, comment)
}

// date adds a date, or a blank with the todo.
func (d *doc) date(key string, t time.Time, todo string) {
	if t.IsZero() {
		d.str(key, "", todo)
		return
	}
	d.set(key, dateText(t), "")
}

// list adds a block sequence of strings.
func (d *doc) list(key string, items []string, comment string) {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, it := range items {
		c := &yaml.Node{}
		_ = c.Encode(it)
		n.Content = append(n.Content, c)
	}
	d.add(key, n, comment)
}

// rangeOf adds {start: ..., end: ...} in flow style, as plans write it.
func (d *doc) rangeOf(key string, start, end time.Time, todo string) {
	if start.IsZero() && end.IsZero() {
		d.str(key, "", todo)
		return
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	for _, kv := range []struct {
		k string
		t time.Time
	}{{"start", start}, {"end", end}} {
		v := &yaml.Node{Kind: yaml.ScalarNode, Value: dateText(kv.t)}
		if kv.t.IsZero() {
			v.Value, v.Tag = "", "!!null"
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv.k}, v)
	}
	d.add(key, n, "half-open [start, end)")
}

// nested adds a mapping under key.
func (d *doc) nested(key string, inner *doc, comment string) {
	n := inner.root
	d.add(key, &n, comment)
}

func (d *doc) String() string {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(&d.root)
	_ = enc.Close()
	return strings.TrimRight(b.String(), "\n")
}

// dateText writes a bare date for midnight UTC, as plans do, else RFC 3339.
func dateText(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format(time.RFC3339)
}
