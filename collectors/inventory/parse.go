package inventory

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/internal/decodeerr"
	"github.com/bfaudit/bfaudit/model"
)

// AttrDeclaredScope keeps the scope an entry declares (a project, a
// namespace): the artifact's Scope is its file, the unit that reported it.
const AttrDeclaredScope = "declared_scope"

type artifactDoc struct {
	Kind       string            `yaml:"kind"`
	System     string            `yaml:"system"`
	Scope      string            `yaml:"scope"`
	URI        string            `yaml:"uri"`
	Name       string            `yaml:"name"`
	BackfillID string            `yaml:"backfill_id"`
	Owner      string            `yaml:"owner"`
	Labels     map[string]string `yaml:"labels"`
	CreatedAt  string            `yaml:"created_at"`
	LastUsedAt string            `yaml:"last_used_at"`
	ModifiedAt string            `yaml:"modified_at"`
	ExpiresAt  string            `yaml:"expires_at"`
	State      string            `yaml:"state"`
	Attributes map[string]string `yaml:"attributes"`
}

// fileDoc is a whole inventory file. Keys other than artifacts are kept
// aside so tools may add their own.
type fileDoc struct {
	Artifacts []artifactDoc  `yaml:"artifacts"`
	Other     map[string]any `yaml:",inline"`
}

// Parse reads one inventory file (JSON is read as YAML, so both give line
// numbers); path is the file's unit and becomes every artifact's Scope.
// The document is decoded once, so anchors and aliases shared between
// entries work. Bad entries are returned as errors naming file, line and
// key; good entries are kept. A file that holds nothing (zero bytes, only
// comments, null) or no artifacts list is an error, never an empty answer;
// `artifacts: []` says there are none.
func Parse(path string, data []byte, defaultSystem string) ([]model.Artifact, []error) {
	// whole refuses the file: path:line: what is wrong, as every parser
	// says it (path: alone when no line applies).
	whole := func(line int, format string, args ...any) ([]model.Artifact, []error) {
		loc := path
		if line > 0 {
			loc = fmt.Sprintf("%s:%d", path, line)
		}
		return nil, []error{fmt.Errorf("%s: "+format, append([]any{loc}, args...)...)}
	}
	// syntax refuses the file for the YAML parser's error, its "line N:"
	// moved into the location.
	syntax := func(msg string) ([]model.Artifact, []error) {
		line, what := decodeerr.YAMLLine(msg, data)
		return whole(line, "%s", what)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return whole(0, "empty file; an inventory file holds {\"artifacts\": [...]} (an empty list when there are none)")
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return syntax(err.Error())
	}
	if len(root.Content) == 0 {
		return whole(0, "holds no document (only comments); expected {\"artifacts\": [...]}")
	}
	doc := root.Content[0]
	if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
		return whole(doc.Line, "holds null; expected {\"artifacts\": [...]}")
	}
	list := findKey(doc, "artifacts")
	switch {
	case list == nil:
		return whole(doc.Line, "artifacts: missing; expected a list of artifacts")
	case list.Kind == yaml.AliasNode && list.Alias != nil:
		list = list.Alias
	}
	if list.Kind != yaml.SequenceNode {
		return whole(list.Line, "artifacts: expected a list of artifacts (an empty list [] when there are none)")
	}

	var fd fileDoc
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var typeErrs []string
	if err := dec.Decode(&fd); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return syntax(err.Error())
		}
		typeErrs = te.Errors
	}
	if len(fd.Artifacts) != len(list.Content) {
		if len(typeErrs) > 0 {
			// The decoder gave up on the list (artifacts defined twice):
			// say why.
			return syntax(strings.Join(typeErrs, "; "))
		}
		// Cannot happen otherwise; refuse rather than pair entries with
		// the wrong lines.
		return whole(list.Line, "artifacts: read %d entries of %d", len(fd.Artifacts), len(list.Content))
	}
	bad, stray := entryErrors(path, list.Content, typeErrs)
	if len(stray) > 0 {
		// An error outside every entry (a key defined twice) leaves no
		// entry trustworthy.
		return syntax(strings.Join(stray, "; "))
	}
	var out []model.Artifact
	var errs []error
	for idx, n := range list.Content {
		if len(bad[idx]) > 0 {
			errs = append(errs, bad[idx]...)
			continue
		}
		a, key, err := toArtifact(fd.Artifacts[idx], defaultSystem)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: artifacts[%d].%v", path, lineOf(n, key), idx, err))
			continue
		}
		a.Scope = path
		out = append(out, a)
	}
	return out, errs
}

var typeErrRE = regexp.MustCompile(`^line (\d+): (.*)$`)
var unknownFieldRE = regexp.MustCompile(`^field (\S+) not found in type \S+$`)

// entryErrors assigns the decoder's type errors to the entries whose text
// holds their line (following aliases, so an entry that reuses a broken
// anchor is refused too); stray are the errors that fall in no entry.
func entryErrors(path string, entries []*yaml.Node, typeErrs []string) (out map[int][]error, stray []string) {
	out = map[int][]error{}
	if len(typeErrs) == 0 {
		return out, nil
	}
	spans := make([]map[int]bool, len(entries))
	for i, n := range entries {
		spans[i] = map[int]bool{}
		linesOf(n, spans[i], 0)
	}
	for _, msg := range typeErrs {
		m := typeErrRE.FindStringSubmatch(msg)
		if m == nil {
			stray = append(stray, msg)
			continue
		}
		line, _ := strconv.Atoi(m[1])
		text := m[2]
		key := ""
		if f := unknownFieldRE.FindStringSubmatch(text); f != nil {
			key, text = "."+f[1], decodeerr.UnknownKey(f[1], strings.Split(knownKeys(), ", "))
		}
		found := false
		for i := range entries {
			if !spans[i][line] {
				continue
			}
			found = true
			e := fmt.Errorf("%s:%d: artifacts[%d]%s: %s", path, line, i, key, text)
			if !slices.ContainsFunc(out[i], func(o error) bool { return o.Error() == e.Error() }) {
				out[i] = append(out[i], e)
			}
		}
		if !found {
			stray = append(stray, msg)
		}
	}
	return out, stray
}

// linesOf collects the lines a node's text spans, through aliases. depth
// bounds alias chains (the parser already refuses alias cycles).
func linesOf(n *yaml.Node, lines map[int]bool, depth int) {
	if n == nil || depth > 64 {
		return
	}
	lines[n.Line] = true
	if n.Kind == yaml.AliasNode {
		linesOf(n.Alias, lines, depth+1)
		return
	}
	for _, c := range n.Content {
		linesOf(c, lines, depth+1)
	}
}

// toArtifact validates one decoded entry; key names what is wrong.
func toArtifact(d artifactDoc, defaultSystem string) (model.Artifact, string, error) {
	a := model.Artifact{
		Kind: model.Kind(d.Kind), System: firstNonEmpty(d.System, defaultSystem, "inventory"),
		URI: d.URI, Name: d.Name, BackfillID: d.BackfillID, Owner: d.Owner, Labels: model.TagsOf(d.Labels),
		State: model.State(d.State), Attributes: model.TagsOf(d.Attributes),
	}
	if !a.Kind.IsValid() {
		if near := decodeerr.Nearest(d.Kind, strings.Split(kindList(), ", ")); near != "" {
			return a, "kind", fmt.Errorf("kind: unknown kind %q; did you mean %s?", d.Kind, near)
		}
		return a, "kind", fmt.Errorf("kind: unknown kind %q (expected one of %s)", d.Kind, kindList())
	}
	if strings.TrimSpace(a.URI) == "" {
		return a, "uri", errors.New("uri: missing; every artifact needs a stable URI")
	}
	if !a.State.IsValid() {
		return a, "state", fmt.Errorf("state: unknown state %q (expected enabled, paused, disabled, active, expired or deleted)", d.State)
	}
	for _, t := range []struct {
		key string
		in  string
		out *model.Instant
	}{{"created_at", d.CreatedAt, &a.CreatedAt}, {"last_used_at", d.LastUsedAt, &a.LastUsedAt},
		{"modified_at", d.ModifiedAt, &a.ModifiedAt}, {"expires_at", d.ExpiresAt, &a.ExpiresAt}} {
		v, err := parseTime(t.in)
		if err != nil {
			return a, t.key, fmt.Errorf("%s: %v", t.key, err)
		}
		*t.out = model.At(v)
	}
	// A keep label exported with the artifact is read as its system's
	// collector reads it (docs/rules/waivers.md).
	a.KeepFromLabels(a.Labels.Map())
	if d.Scope != "" {
		a.SetAttr(AttrDeclaredScope, d.Scope)
	}
	return a, "", nil
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-03-01) or RFC 3339 timestamp", s)
}

func findKey(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// lineOf is the line of key in an entry, or the entry's line.
func lineOf(n *yaml.Node, key string) int {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Line
	}
	if k := findKey(n, key); k != nil {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i+1] == k {
				return n.Content[i].Line
			}
		}
	}
	return n.Line
}

func knownKeys() string {
	return "kind, system, scope, uri, name, backfill_id, owner, labels, created_at, last_used_at, modified_at, expires_at, state, attributes"
}

func kindList() string {
	var s []string
	for _, k := range model.Kinds() {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
