// Package flagd reads flag definitions in the shape flagd and the
// OpenFeature Operator share (https://flagd.dev/schema/v0/flags.json): a
// top-level `flags` map of name to {state, variants, defaultVariant,
// targeting, metadata} (or flagd's own list of them, each with its
// `key`), an optional top-level `metadata`, and `$evaluators`. The flagd
// collector reads them from files (ParseFile: definitions, and the
// Operator's FeatureFlag manifests among other Kubernetes documents) and
// the kubernetes collector from FeatureFlag resources (spec.flagSpec,
// Parse); both turn a flag into a feature_flag artifact here.
package flagd

import (
	"strconv"
	"strings"
	"unicode"

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
	// Shape is how the flags are written: ShapeMap or ShapeArray.
	Shape string
	// Notes say what flagd itself only warns of (variants of several
	// types): the flags are read, and flagd serves them.
	Notes []string
}

// How a document writes its flags.
const (
	ShapeMap   = "map"   // flags: {name: flag}, what providers and the Operator read
	ShapeArray = "array" // flags: [{key: name, ...}], the flagd daemon's own form (flagd.json)
)

// On says whether the flag is on by default: it is ENABLED, names a
// default variant, and that variant's value does not say off. A boolean
// is its value; a string is on unless it says "off" or "false"; a number
// is on unless zero; an object is on. So an ENABLED flag of string or
// object variants is on whatever its default variant holds: it serves
// that value to everyone its targeting does not send elsewhere.
func (f Flag) On() bool {
	return f.State == "ENABLED" && f.DefaultVariant != "" && servesOn(f.DefaultValue)
}

// servesOn says whether a default variant's value is an "on" position.
func servesOn(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "off", "false":
			return false
		}
		return true
	case int:
		return x != 0
	case int64:
		return x != 0
	case uint64:
		return x != 0
	case float64:
		return x != 0
	}
	return true // an object or a list: a value served
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
		Labels: model.TagsOf(f.Metadata), State: model.StateDisabled}
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
