package flagd

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/internal/decodeerr"
	"gopkg.in/yaml.v3"
)

// Parse reads one definition document, JSON or YAML (JSON is read as
// YAML, so both give line numbers). where names the document in errors:
// "where:line:" when lines is set, "where:" otherwise. A document that
// cannot be read as a whole (bad syntax, no flags) is fatal; a flag that
// cannot be read is one of errs, and the other flags are kept.
func Parse(where string, data []byte, lines bool) (doc Doc, errs []error, fatal error) {
	p := &parser{where: where, lines: lines}
	if len(bytes.TrimSpace(data)) == 0 {
		return doc, nil, fmt.Errorf("%s: empty; a flag definition holds {\"flags\": {...}}", where)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return doc, nil, p.syntax(err)
	}
	if len(root.Content) == 0 {
		return doc, nil, fmt.Errorf("%s: holds no document; expected {\"flags\": {...}}", where)
	}
	top := resolve(root.Content[0])
	if top == nil || top.Kind != yaml.MappingNode {
		return doc, nil, fmt.Errorf("%s: expected a map with flags, not %s", p.loc(root.Content[0].Line), describe(top))
	}
	return p.definition(top)
}

// parser reads definitions found in one file or resource.
type parser struct {
	where string
	lines bool
	// offset is added to the lines of the nodes read: a definition held
	// as text inside a YAML document (a v1alpha1 featureFlagSpec) starts
	// on the line after its key.
	offset int
	// path is the key path to the definition in its document
	// ("spec.flagSpec."), so an error names the key as the file writes it.
	path string
	// at is the line named when the definition's own lines mean nothing
	// in the file (JSON text in a quoted string): the line of its key.
	at int
}

func (p *parser) loc(line int) string {
	switch {
	case p.lines && line > 0:
		return p.where + ":" + strconv.Itoa(line+p.offset)
	case p.at > 0:
		return p.where + ":" + strconv.Itoa(p.at)
	}
	return p.where
}

// syntax words a YAML error, with its line when it has one.
func (p *parser) syntax(err error) error {
	line, msg := syntaxParts(err)
	return fmt.Errorf("%s: %s", p.loc(line), msg)
}

// syntaxParts splits a YAML error into its line (0 when it names none)
// and what is wrong.
func syntaxParts(err error) (int, string) { return decodeerr.YAMLSyntax(err, nil) }

// definition reads a definition: a map holding flags (a map of name to
// flag, or a list of flags with their key) and metadata.
func (p *parser) definition(top *yaml.Node) (doc Doc, errs []error, fatal error) {
	if dup := duplicateKey(top); dup != nil {
		return doc, nil, fmt.Errorf("%s: %s%s: defined twice", p.loc(dup.Line), p.path, dup.Value)
	}
	flagsKey, flags := mapEntry(top, "flags")
	if flags == nil {
		return doc, nil, fmt.Errorf("%s: %sflags: missing; expected a map of flag name to flag", p.loc(top.Line), p.path)
	}
	if flags.Kind != yaml.MappingNode && flags.Kind != yaml.SequenceNode {
		return doc, nil, fmt.Errorf("%s: %sflags: expected a map of flag name to flag, or a list of flags with their key, not %s",
			p.loc(flagsKey.Line), p.path, describe(flags))
	}
	if k, m := mapEntry(top, "metadata"); m != nil {
		md, err := metadata(m)
		if err != nil {
			return doc, nil, fmt.Errorf("%s: %smetadata%s", p.loc(lineOr(err.line, k.Line)), p.path, err.msg)
		}
		doc.Metadata = md
	}
	seen := map[string]bool{}
	keep := func(name string, at, v *yaml.Node, label string) {
		if seen[name] {
			errs = append(errs, fmt.Errorf("%s: %s: defined twice", p.loc(at.Line), label))
			doc.Flags = dropFlag(doc.Flags, name)
			return
		}
		seen[name] = true
		f, prob, note := flag(name, v)
		if prob != nil {
			errs = append(errs, fmt.Errorf("%s: %s%s", p.loc(lineOr(prob.line, at.Line)), label, prob.msg))
			return
		}
		if note != nil {
			doc.Notes = append(doc.Notes, fmt.Sprintf("%s: %s%s", p.loc(lineOr(note.line, at.Line)), label, note.msg))
		}
		f.Line = at.Line + p.offset
		if !p.lines {
			f.Line = 0
		}
		f.Metadata = merge(doc.Metadata, f.Metadata)
		doc.Flags = append(doc.Flags, f)
	}
	if flags.Kind == yaml.MappingNode {
		doc.Shape = ShapeMap
		for i := 0; i+1 < len(flags.Content); i += 2 {
			k, v := flags.Content[i], flags.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Value == "" {
				errs = append(errs, fmt.Errorf("%s: %sflags: a flag name must be a non-empty string", p.loc(k.Line), p.path))
				continue
			}
			keep(k.Value, k, v, p.path+"flags."+clip(k.Value))
		}
		return doc, errs, nil
	}
	// flagd's list form: each flag carries its name as key.
	doc.Shape = ShapeArray
	for i, item := range flags.Content {
		label := fmt.Sprintf("%sflags[%d]", p.path, i)
		v := resolve(item)
		if v == nil || v.Kind != yaml.MappingNode {
			errs = append(errs, fmt.Errorf("%s: %s: expected a flag {key, state, variants, defaultVariant}, not %s", p.loc(item.Line), label, describe(v)))
			continue
		}
		_, key := mapEntry(v, "key")
		if key == nil || key.Kind != yaml.ScalarNode || key.Tag == "!!null" || key.Value == "" {
			errs = append(errs, fmt.Errorf("%s: %s.key: missing; each flag of the list names itself with key", p.loc(item.Line), label))
			continue
		}
		keep(key.Value, item, v, label+" ("+clip(key.Value)+")")
	}
	return doc, errs, nil
}

// problem is what is wrong inside a flag: msg starts with the key path
// (".state: ...") and line is where, 0 when unknown.
type problem struct {
	line int
	msg  string
}

func bad(n *yaml.Node, format string, args ...any) *problem {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &problem{line: line, msg: fmt.Sprintf(format, args...)}
}

// flag reads one flag. A problem means it cannot be read; a note is what
// flagd itself only warns of (the flag is read, and served).
func flag(name string, n *yaml.Node) (Flag, *problem, *problem) {
	f := Flag{Name: name}
	v := resolve(n)
	if v == nil || v.Kind != yaml.MappingNode {
		return f, bad(n, ": expected a flag {state, variants, defaultVariant}, not %s", describe(v)), nil
	}
	if dup := duplicateKey(v); dup != nil {
		return f, bad(dup, ".%s: defined twice", dup.Value), nil
	}
	sk, s := mapEntry(v, "state")
	switch {
	case s == nil:
		return f, bad(v, ".state: missing; expected ENABLED or DISABLED"), nil
	case s.Kind != yaml.ScalarNode || (s.Value != "ENABLED" && s.Value != "DISABLED"):
		return f, bad(sk, ".state: %s; expected ENABLED or DISABLED", shown(s)), nil
	}
	f.State = s.Value
	vk, vars := mapEntry(v, "variants")
	switch {
	case vars == nil:
		return f, bad(v, ".variants: missing; expected a map of variant name to value"), nil
	case vars.Kind != yaml.MappingNode || len(vars.Content) == 0:
		return f, bad(vk, ".variants: expected a map of at least one variant name to value, not %s", describe(vars)), nil
	}
	if dup := duplicateKey(vars); dup != nil {
		return f, bad(dup, ".variants.%s: defined twice", dup.Value), nil
	}
	values := map[string]*yaml.Node{}
	for i := 0; i+1 < len(vars.Content); i += 2 {
		k := vars.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return f, bad(k, ".variants: a variant name must be a non-empty string"), nil
		}
		values[k.Value] = vars.Content[i+1]
		f.Variants = append(f.Variants, k.Value)
	}
	sort.Strings(f.Variants)
	if dk, d := mapEntry(v, "defaultVariant"); d != nil {
		switch {
		case d.Kind == yaml.ScalarNode && d.Tag == "!!null":
		case d.Kind != yaml.ScalarNode || d.Tag != "!!str":
			return f, bad(dk, ".defaultVariant: expected a variant name or null, not %s", describe(d)), nil
		case values[d.Value] == nil:
			return f, bad(dk, ".defaultVariant: %q is not one of the variants (%s)", clip(d.Value), clip(strings.Join(f.Variants, ", "))), nil
		default:
			f.DefaultVariant = d.Value
			var val any
			if err := values[d.Value].Decode(&val); err != nil {
				return f, bad(values[d.Value], ".variants.%s: %v", clip(d.Value), strings.TrimPrefix(err.Error(), "yaml: ")), nil
			}
			f.DefaultValue = val
		}
	}
	if _, t := mapEntry(v, "targeting"); t != nil {
		f.Targeting = t.Tag != "!!null" && !(t.Kind == yaml.MappingNode && len(t.Content) == 0)
	}
	if mk, m := mapEntry(v, "metadata"); m != nil {
		md, err := metadata(m)
		if err != nil {
			return f, &problem{line: lineOr(err.line, mk.Line), msg: ".metadata" + err.msg}, nil
		}
		f.Metadata = md
	}
	return f, nil, variantTypes(vk, vars)
}

// metadata reads a metadata map: keys to strings, numbers or booleans.
func metadata(n *yaml.Node) (map[string]string, *problem) {
	m := resolve(n)
	if m == nil || (m.Kind == yaml.ScalarNode && m.Tag == "!!null") {
		return nil, nil
	}
	if m.Kind != yaml.MappingNode {
		return nil, bad(n, ": expected a map of key to string, number or boolean, not %s", describe(m))
	}
	if dup := duplicateKey(m); dup != nil {
		return nil, bad(dup, ".%s: defined twice", dup.Value)
	}
	out := map[string]string{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, bad(k, ": a key must be a string")
		}
		if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return nil, bad(k, ".%s: expected a string, number or boolean, not %s", clip(k.Value), describe(v))
		}
		out[k.Value] = v.Value
	}
	return out, nil
}

// resolve follows aliases (bounded: the parser refuses alias cycles).
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return resolve(n.Content[0])
	}
	return n
}

// mapEntry finds key in a mapping and returns its key node and value,
// the value with aliases followed.
func mapEntry(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Kind == yaml.ScalarNode {
			return m.Content[i], resolve(m.Content[i+1])
		}
	}
	return nil, nil
}

// duplicateKey returns the second key node of a key written twice.
func duplicateKey(m *yaml.Node) *yaml.Node {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if seen[k.Value] {
			return k
		}
		seen[k.Value] = true
	}
	return nil
}

func describe(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode && len(n.Content) == 0:
		return "an empty map"
	case n.Kind == yaml.MappingNode:
		return "a map"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Tag == "!!null":
		return "null"
	case n.Tag == "!!str":
		return "the string " + strconv.Quote(clip(n.Value))
	}
	return clip(n.Value)
}

func shown(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(clip(n.Value))
	}
	return describe(n)
}

// clip bounds text from the document quoted in an error.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func lineOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}
