// Package flagd reads flag definitions in the shape flagd and the
// OpenFeature Operator share (https://flagd.dev/schema/v0/flags.json): a
// top-level `flags` map of name to {state, variants, defaultVariant,
// targeting, metadata}, an optional top-level `metadata`, and
// `$evaluators`. The flagd collector reads it from files and the
// kubernetes collector from FeatureFlag resources (spec.flagSpec); both
// turn a flag into a feature_flag artifact here.
package flagd

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a flag artifact besides the model's.
const (
	AttrDefaultVariant = "default_variant" // the default variant's name ("" when null: the code's default)
	AttrVariants       = "variants"        // variant names, comma-separated and sorted
	AttrState          = "state"           // ENABLED or DISABLED, as the definition says
	AttrTargeting      = "targeting"       // "true" when the flag has targeting rules
)

// Flag is one flag of a definition.
type Flag struct {
	Name string
	// Line is the line of the flag's name in the document (0 when the
	// document's lines mean nothing, as for a resource's spec).
	Line  int
	State string // ENABLED or DISABLED
	// DefaultVariant is "" when absent or null: the code's default.
	DefaultVariant string
	Variants       []string // sorted
	// DefaultValue is the default variant's value, nil without one.
	DefaultValue any
	Targeting    bool
	// Metadata is the flag's metadata over the document's, every value as
	// text (true, 1.5, "x").
	Metadata map[string]string
}

// Doc is a definition document: its flags in the order written.
type Doc struct {
	Flags    []Flag
	Metadata map[string]string
}

// Parse reads one document, JSON or YAML (JSON is read as YAML, so both
// give line numbers). where names the document in errors: "where:line:"
// when lines is set, "where:" otherwise. A document that cannot be read
// as a whole (bad syntax, no flags map) is fatal; a flag that cannot be
// read is one of errs, and the other flags are kept.
func Parse(where string, data []byte, lines bool) (doc Doc, errs []error, fatal error) {
	loc := func(line int) string {
		if lines && line > 0 {
			return where + ":" + strconv.Itoa(line)
		}
		return where
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return doc, nil, fmt.Errorf("%s: empty; a flag definition holds {\"flags\": {...}}", where)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := lineRE.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			return doc, nil, fmt.Errorf("%s: %s", loc(n), m[2])
		}
		return doc, nil, fmt.Errorf("%s: %s", where, msg)
	}
	if len(root.Content) == 0 {
		return doc, nil, fmt.Errorf("%s: holds no document; expected {\"flags\": {...}}", where)
	}
	top := resolve(root.Content[0])
	if top == nil || top.Kind != yaml.MappingNode {
		return doc, nil, fmt.Errorf("%s: expected a map with flags, not %s", loc(root.Content[0].Line), describe(top))
	}
	if dup := duplicateKey(top); dup != nil {
		return doc, nil, fmt.Errorf("%s: %s: defined twice", loc(dup.Line), dup.Value)
	}
	flagsKey, flags := mapEntry(top, "flags")
	if flags == nil {
		return doc, nil, fmt.Errorf("%s: flags: missing; expected a map of flag name to flag", loc(top.Line))
	}
	if flags.Kind != yaml.MappingNode {
		what := "expected a map of flag name to flag"
		if flags.Kind == yaml.SequenceNode {
			what += " (the array form of the flagd daemon is not read: write flags as a map)"
		}
		return doc, nil, fmt.Errorf("%s: flags: %s, not %s", loc(flagsKey.Line), what, describe(flags))
	}
	if k, m := mapEntry(top, "metadata"); m != nil {
		md, err := metadata(m)
		if err != nil {
			return doc, nil, fmt.Errorf("%s: metadata%s", loc(lineOr(err.line, k.Line)), err.msg)
		}
		doc.Metadata = md
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(flags.Content); i += 2 {
		k, v := flags.Content[i], flags.Content[i+1]
		name := k.Value
		if k.Kind != yaml.ScalarNode || name == "" {
			errs = append(errs, fmt.Errorf("%s: flags: a flag name must be a non-empty string", loc(k.Line)))
			continue
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("%s: flags.%s: defined twice", loc(k.Line), clip(name)))
			doc.Flags = dropFlag(doc.Flags, name)
			continue
		}
		seen[name] = true
		f, err := flag(name, v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: flags.%s%s", loc(lineOr(err.line, k.Line)), clip(name), err.msg))
			continue
		}
		f.Line = k.Line
		if !lines {
			f.Line = 0
		}
		f.Metadata = merge(doc.Metadata, f.Metadata)
		doc.Flags = append(doc.Flags, f)
	}
	return doc, errs, nil
}

var lineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

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

func flag(name string, n *yaml.Node) (Flag, *problem) {
	f := Flag{Name: name}
	v := resolve(n)
	if v == nil || v.Kind != yaml.MappingNode {
		return f, bad(n, ": expected a flag {state, variants, defaultVariant}, not %s", describe(v))
	}
	if dup := duplicateKey(v); dup != nil {
		return f, bad(dup, ".%s: defined twice", dup.Value)
	}
	sk, s := mapEntry(v, "state")
	switch {
	case s == nil:
		return f, bad(v, ".state: missing; expected ENABLED or DISABLED")
	case s.Kind != yaml.ScalarNode || (s.Value != "ENABLED" && s.Value != "DISABLED"):
		return f, bad(sk, ".state: %s; expected ENABLED or DISABLED", shown(s))
	}
	f.State = s.Value
	vk, vars := mapEntry(v, "variants")
	switch {
	case vars == nil:
		return f, bad(v, ".variants: missing; expected a map of variant name to value")
	case vars.Kind != yaml.MappingNode || len(vars.Content) == 0:
		return f, bad(vk, ".variants: expected a map of at least one variant name to value, not %s", describe(vars))
	}
	if dup := duplicateKey(vars); dup != nil {
		return f, bad(dup, ".variants.%s: defined twice", dup.Value)
	}
	values := map[string]*yaml.Node{}
	for i := 0; i+1 < len(vars.Content); i += 2 {
		k := vars.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return f, bad(k, ".variants: a variant name must be a non-empty string")
		}
		values[k.Value] = vars.Content[i+1]
		f.Variants = append(f.Variants, k.Value)
	}
	sort.Strings(f.Variants)
	if dk, d := mapEntry(v, "defaultVariant"); d != nil {
		switch {
		case d.Kind == yaml.ScalarNode && d.Tag == "!!null":
		case d.Kind != yaml.ScalarNode || d.Tag != "!!str":
			return f, bad(dk, ".defaultVariant: expected a variant name or null, not %s", describe(d))
		case values[d.Value] == nil:
			return f, bad(dk, ".defaultVariant: %q is not one of the variants (%s)", clip(d.Value), clip(strings.Join(f.Variants, ", ")))
		default:
			f.DefaultVariant = d.Value
			var val any
			if err := values[d.Value].Decode(&val); err != nil {
				return f, bad(values[d.Value], ".variants.%s: %v", clip(d.Value), strings.TrimPrefix(err.Error(), "yaml: "))
			}
			f.DefaultValue = val
		}
	}
	if _, t := mapEntry(v, "targeting"); t != nil {
		t = resolve(t)
		f.Targeting = t != nil && !(t.Kind == yaml.MappingNode && len(t.Content) == 0) && t.Tag != "!!null"
	}
	if mk, m := mapEntry(v, "metadata"); m != nil {
		md, err := metadata(m)
		if err != nil {
			return f, &problem{line: lineOr(err.line, mk.Line), msg: ".metadata" + err.msg}
		}
		f.Metadata = md
	}
	return f, nil
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

// On says whether the flag serves "on" by default: it is ENABLED and its
// default variant's value is truthy (true, "on", "true", a non-zero
// number). A flag with targeting may still be on for some; its position
// says which variant it serves by default.
func (f Flag) On() bool { return f.State == "ENABLED" && truthy(f.DefaultValue) }

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return strings.EqualFold(x, "on") || strings.EqualFold(x, "true")
	case int:
		return x != 0
	case int64:
		return x != 0
	case uint64:
		return x != 0
	case float64:
		return x != 0
	}
	return false
}

// Labels are the flag's metadata as the selector reads labels: every key
// as written, plus its snake_case form (backfillId -> backfill_id) so a
// camelCase key matches the selector's label keys.
func (f Flag) Labels() map[string]string {
	if len(f.Metadata) == 0 {
		return nil
	}
	out := make(map[string]string, len(f.Metadata))
	for k, v := range f.Metadata {
		out[k] = v
	}
	for k, v := range f.Metadata {
		if s := snake(k); s != k {
			if _, has := out[s]; !has {
				out[s] = v
			}
		}
	}
	return out
}

// meta returns the metadata value under any of keys, read as snake_case.
func (f Flag) meta(keys ...string) (string, bool) {
	for _, want := range keys {
		for k, v := range f.Metadata {
			if snake(k) == want {
				return v, true
			}
		}
	}
	return "", false
}

// Artifact is the flag as a feature_flag artifact of system at uri,
// reported under scope; the caller ties it (BackfillID, Correlation).
func (f Flag) Artifact(system, uri, scope string) model.Artifact {
	a := model.Artifact{Kind: model.KindFeatureFlag, System: system, Scope: scope, URI: uri, Name: f.Name,
		Labels: f.Metadata, State: model.StateDisabled}
	if f.On() {
		a.State = model.StateEnabled
	}
	if f.DefaultVariant != "" {
		a.SetAttr(model.AttrPosition, f.DefaultVariant)
	}
	a.SetAttr(AttrDefaultVariant, f.DefaultVariant)
	a.SetAttr(AttrVariants, strings.Join(f.Variants, ","))
	a.SetAttr(AttrState, f.State)
	if f.Targeting {
		a.SetAttr(AttrTargeting, "true")
	}
	if v, ok := f.meta("replay_variant", "replay_position"); ok && v != "" {
		a.SetAttr(model.AttrReplayPosition, v)
	}
	if v, ok := f.meta("side_effect_guard"); ok {
		if b, err := strconv.ParseBool(v); err == nil && b {
			a.SetAttr(model.AttrGuard, "true")
		}
	}
	if v, ok := f.meta("owner"); ok {
		a.Owner = v
	}
	return a
}

// Tie ties the flag by its metadata and name through the selector, then
// by the extra labels and name of what holds it (a FeatureFlag resource's
// labels and annotations and name); ok is false for an untied flag.
func (f Flag) Tie(sel *correlate.Selector, uri string, holderLabels map[string]string, holderName string) (id, how string, ok bool) {
	if id, how, ok := sel.Match(uri, f.Name, f.Labels()); ok {
		return id, how, true
	}
	if holderLabels == nil && holderName == "" {
		return "", "", false
	}
	return sel.Match(uri, holderName, holderLabels)
}

// snake writes a camelCase key in snake_case (backfillId -> backfill_id,
// sideEffectGuard -> side_effect_guard) and '-' as '_'.
func snake(k string) string {
	var b strings.Builder
	for i, r := range k {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		if r == '-' {
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func merge(base, over map[string]string) map[string]string {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func dropFlag(fs []Flag, name string) []Flag {
	out := fs[:0]
	for _, f := range fs {
		if f.Name != name {
			out = append(out, f)
		}
	}
	return out
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
