package flagd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// Shapes of the OpenFeature Operator's resources that hold a definition.
const (
	// ShapeFeatureFlag is a FeatureFlag (core.openfeature.dev/v1beta1):
	// the definition in spec.flagSpec.
	ShapeFeatureFlag = "FeatureFlag"
	// ShapeFeatureFlagConfiguration is the Operator's older
	// FeatureFlagConfiguration: spec.featureFlagSpec, JSON text in
	// v1alpha1, a map from v1alpha2 on.
	ShapeFeatureFlagConfiguration = "FeatureFlagConfiguration"
	// ShapeConfigMap is a ConfigMap whose data entry holds a definition
	// as text (flagd mounts it as its flag file).
	ShapeConfigMap = "ConfigMap"
)

const operatorGroup = "core.openfeature.dev"

// Resource is the Kubernetes object a definition was found in.
type Resource struct {
	APIVersion, Kind, Namespace, Name string
	// Labels are the resource's annotations and labels (labels win).
	Labels map[string]string
}

// Ref is namespace/name, or the name when no namespace is written.
func (r *Resource) Ref() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// Set is one flag definition a file holds: a flagd document, or the
// definition inside an Operator resource.
type Set struct {
	Doc
	// Shape is ShapeMap or ShapeArray for a flagd document, or the kind
	// of the resource holding it.
	Shape string
	// Resource is the resource holding the definition, nil for a flagd
	// document.
	Resource *Resource
	// Entry is the ConfigMap data key holding the definition.
	Entry string
}

// File is what one file holds.
type File struct {
	Sets []Set
	// Other describes, in order, each document that holds no flag
	// definition and does not claim to ("apps/v1 Deployment web", "a map
	// without flags"). A document of only comments is not one.
	Other []string
	// Errs are what could not be read: a flag, or a document that claims
	// to hold flags (a `flags` key, a flagd `$schema`, an Operator
	// resource) and is malformed. The rest of the file is read.
	Errs []error
	// Notes are what flagd only warns of (the flags are read).
	Notes []string
}

// ErrEmpty is the error of a file with no document in it.
var ErrEmpty = errors.New("empty; a flag definition holds {\"flags\": {...}}")

// maxListDepth bounds Kubernetes Lists inside Lists.
const maxListDepth = 4

// ParseFile reads every document of a file, JSON or YAML (a stream of
// documents separated by ---): flagd definitions (flags as a map, or
// flagd's list form), the Operator's FeatureFlag and
// FeatureFlagConfiguration resources, ConfigMaps whose data holds a
// definition, and Kubernetes Lists of them.
// Other documents (a Deployment, a Service, a package.json) are
// described in Other and left alone. where names the file in errors,
// with the line ("where:12: ..."). The error is fatal: bad YAML, or no
// document at all (wrapping ErrEmpty).
func ParseFile(where string, data []byte) (File, error) {
	var out File
	p := &parser{where: where, lines: true}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, fmt.Errorf("%s: %w", where, ErrEmpty)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	docs := 0
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return File{}, p.syntax(err)
		}
		top := resolve(&n)
		if top == nil || (top.Kind == yaml.ScalarNode && top.Tag == "!!null") {
			continue // comments only, or an empty document between ---
		}
		docs++
		readDocument(p, top, &out, 0)
	}
	if docs == 0 {
		return File{}, fmt.Errorf("%s: %w", where, ErrEmpty)
	}
	return out, nil
}

// readDocument sorts one document: a Kubernetes object, a flagd
// definition, or something else.
func readDocument(p *parser, top *yaml.Node, out *File, depth int) {
	if top.Kind != yaml.MappingNode {
		out.Other = append(out.Other, describe(top))
		return
	}
	apiVersion, kind := scalar(top, "apiVersion"), scalar(top, "kind")
	_, flags := mapEntry(top, "flags")
	switch {
	case apiVersion != "" && kind != "":
		readObject(p, top, apiVersion, kind, out, depth)
	case flags != nil || claimsFlagd(top):
		addDefinition(p, top, nil, "", out)
	default:
		out.Other = append(out.Other, "a map without flags")
	}
}

// claimsFlagd says whether a map without flags says it is a flagd
// definition: it names flagd's schema or holds $evaluators.
func claimsFlagd(top *yaml.Node) bool {
	if _, ev := mapEntry(top, "$evaluators"); ev != nil {
		return true
	}
	s := scalar(top, "$schema")
	return strings.Contains(s, "flagd.dev/schema") || strings.HasSuffix(s, "flags.json") || strings.HasSuffix(s, "flagd.json")
}

// readObject reads a Kubernetes object: an Operator resource holding a
// definition, a List of objects, or something to leave alone.
func readObject(p *parser, top *yaml.Node, apiVersion, kind string, out *File, depth int) {
	group, _, _ := strings.Cut(apiVersion, "/")
	if !strings.Contains(apiVersion, "/") {
		group = "" // the core group: v1
	}
	specKey := ""
	switch {
	case kind == "List" && depth < maxListDepth:
		_, items := mapEntry(top, "items")
		if items == nil || items.Kind != yaml.SequenceNode {
			out.Other = append(out.Other, apiVersion+" List")
			return
		}
		for _, it := range items.Content {
			if it = resolve(it); it != nil {
				readDocument(p, it, out, depth+1)
			}
		}
		return
	case group == operatorGroup && kind == ShapeFeatureFlag:
		specKey = "flagSpec"
	case group == operatorGroup && kind == ShapeFeatureFlagConfiguration:
		specKey = "featureFlagSpec"
	case group == "" && kind == ShapeConfigMap:
		if readConfigMap(p, top, out) {
			return
		}
		fallthrough
	default:
		what := apiVersion + " " + kind
		if name := objectMeta(top).Name; name != "" {
			what += " " + clip(name)
		}
		out.Other = append(out.Other, what)
		return
	}
	res := objectMeta(top)
	res.APIVersion, res.Kind = apiVersion, kind
	at := kind + " " + clip(res.Ref())
	sk, spec := mapEntry(top, "spec")
	fk, fs := mapEntry(spec, specKey)
	switch {
	case fs == nil:
		line := top.Line
		if sk != nil {
			line = sk.Line
		}
		out.Errs = append(out.Errs, fmt.Errorf("%s: %s: spec.%s: missing; the resource holds its flags there", p.loc(line), at, specKey))
		return
	case fs.Kind == yaml.ScalarNode && fs.Tag == "!!str" && kind == ShapeFeatureFlagConfiguration:
		// v1alpha1: the definition as JSON text. A literal block keeps
		// its lines, counted from the line after the key.
		inner := &parser{where: p.where, lines: fs.Style == yaml.LiteralStyle, offset: fs.Line, at: fk.Line, path: "spec." + specKey + "."}
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(fs.Value), &root); err != nil {
			line, msg := syntaxParts(err)
			where := p.loc(fk.Line)
			if inner.lines && line > 0 {
				where = inner.loc(line)
			}
			out.Errs = append(out.Errs, fmt.Errorf("%s: %s: spec.%s: %s", where, at, specKey, msg))
			return
		}
		def := resolve(&root)
		if def == nil || def.Kind != yaml.MappingNode {
			out.Errs = append(out.Errs, fmt.Errorf("%s: %s: spec.%s: expected a flag definition {\"flags\": {...}}, not %s", p.loc(fk.Line), at, specKey, describe(def)))
			return
		}
		addDefinition(inner, def, res, kind, out)
	case fs.Kind == yaml.MappingNode:
		addDefinition(&parser{where: p.where, lines: true, path: "spec." + specKey + "."}, fs, res, kind, out)
	default:
		out.Errs = append(out.Errs, fmt.Errorf("%s: %s: spec.%s: expected a flag definition, not %s", p.loc(fk.Line), at, specKey, describe(fs)))
	}
}

// readConfigMap reads the data entries of a ConfigMap that hold a flag
// definition as text (a map with flags, or one naming flagd's schema);
// other entries (an nginx.conf) are left alone. It says whether any did.
func readConfigMap(p *parser, top *yaml.Node, out *File) bool {
	_, data := mapEntry(top, "data")
	if data == nil || data.Kind != yaml.MappingNode {
		return false
	}
	res := objectMeta(top)
	res.APIVersion, res.Kind = "v1", ShapeConfigMap
	found := false
	for i := 0; i+1 < len(data.Content); i += 2 {
		k, v := data.Content[i], resolve(data.Content[i+1])
		if k.Kind != yaml.ScalarNode || v == nil || v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
			continue
		}
		var root yaml.Node
		if yaml.Unmarshal([]byte(v.Value), &root) != nil {
			continue // not YAML or JSON: not a definition
		}
		def := resolve(&root)
		if def == nil || def.Kind != yaml.MappingNode {
			continue
		}
		if _, flags := mapEntry(def, "flags"); flags == nil && !claimsFlagd(def) {
			continue
		}
		found = true
		inner := &parser{where: p.where, lines: v.Style == yaml.LiteralStyle, offset: v.Line, at: k.Line, path: "data." + clip(k.Value) + ": "}
		addEntry(inner, def, res, ShapeConfigMap, k.Value, out)
	}
	return found
}

func addDefinition(p *parser, def *yaml.Node, res *Resource, shape string, out *File) {
	addEntry(p, def, res, shape, "", out)
}

// addEntry adds the definition def of res (nil for a flagd document,
// whose shape is then its own, ShapeMap or ShapeArray) to out.
func addEntry(p *parser, def *yaml.Node, res *Resource, shape, entry string, out *File) {
	doc, errs, fatal := p.definition(def)
	if fatal != nil {
		out.Errs = append(out.Errs, fatal)
		return
	}
	if shape == "" {
		shape = doc.Shape
	}
	out.Errs = append(out.Errs, errs...)
	out.Notes = append(out.Notes, doc.Notes...)
	out.Sets = append(out.Sets, Set{Doc: doc, Shape: shape, Resource: res, Entry: entry})
}

// objectMeta reads a Kubernetes object's name, namespace, labels and
// annotations (only text values).
func objectMeta(top *yaml.Node) *Resource {
	_, md := mapEntry(top, "metadata")
	r := &Resource{Name: scalar(md, "name"), Namespace: scalar(md, "namespace")}
	for _, key := range []string{"annotations", "labels"} {
		_, m := mapEntry(md, key)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], resolve(m.Content[i+1])
			if k.Kind == yaml.ScalarNode && v != nil && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
				if r.Labels == nil {
					r.Labels = map[string]string{}
				}
				r.Labels[k.Value] = v.Value
			}
		}
	}
	return r
}

// scalar is the text of a map's scalar entry, "" when absent or not text.
func scalar(m *yaml.Node, key string) string {
	_, v := mapEntry(m, key)
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return ""
	}
	return v.Value
}
