package prometheus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/safefile"
	commonmodel "github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"gopkg.in/yaml.v3"
)

// maxFileBytes caps one rule file; real ones are kilobytes.
const maxFileBytes = 16 << 20

// maxDocuments bounds the YAML documents read from one manifest file.
const maxDocuments = 10_000

// ruleFile is one file to read: its unit (the path as the config writes
// it, cleaned, with "/" separators) and where it is on disk.
type ruleFile struct{ unit, path string }

// files expands rule_files into the files to read, once each. A literal
// path is read even when missing (then its unit fails); a glob that
// matches nothing answers "no files" when its directory exists, and fails
// at that directory when it does not, so a mistyped directory is never
// read as "every rule was deleted".
func (p *Prometheus) files(ctx context.Context, addErr func(scope string, err error)) []ruleFile {
	var out []ruleFile
	seen := map[string]bool{}
	add := func(f ruleFile) {
		if !seen[f.unit] {
			seen[f.unit] = true
			out = append(out, f)
		}
	}
	for _, pattern := range p.RuleFiles {
		resolved := p.env.Path(pattern)
		if !safefile.HasMeta(pattern) {
			if fi, err := os.Stat(resolved); err == nil && fi.IsDir() {
				for _, f := range p.dirFiles(ctx, pattern, resolved, addErr) {
					add(f)
				}
				continue
			}
			add(ruleFile{unit: unitOf(pattern), path: resolved})
			continue
		}
		matches, err := safefile.Glob(resolved, false)
		if err != nil { // checked at Init; kept for safety
			addErr(unitOf(safefile.FixedDir(pattern)), fmt.Errorf("prometheus source %s: rule_files %q: %v", p.sourceName(), pattern, err))
			continue
		}
		if len(matches) == 0 {
			dir := safefile.FixedDir(pattern)
			if fi, err := os.Stat(p.env.Path(dir)); err != nil || !fi.IsDir() {
				addErr(unitOf(dir), fmt.Errorf("prometheus source %s: rule_files %q: the directory does not exist or cannot be read", p.sourceName(), pattern))
			}
			continue
		}
		for _, m := range matches {
			add(ruleFile{unit: p.unitOfMatch(pattern, m), path: m})
		}
	}
	return out
}

// dirFiles lists the YAML files (.yml, .yaml) under a directory the config
// names, at any depth, in lexical order (safefile.Walk: hidden names passed
// over); a folder that cannot be listed is an error at that folder.
func (p *Prometheus) dirFiles(ctx context.Context, pattern, dir string, addErr func(scope string, err error)) []ruleFile {
	unit := func(path string) string {
		rel, _ := filepath.Rel(dir, path)
		return unitOf(filepath.Join(pattern, rel))
	}
	paths, err := safefile.Walk(ctx, dir, safefile.WalkOptions{
		Match: func(name string) bool {
			ext := strings.ToLower(filepath.Ext(name))
			return ext == ".yml" || ext == ".yaml"
		},
		Fail: func(path string, err error) {
			u := unit(path)
			addErr(u, fmt.Errorf("prometheus source %s: %s: %w", p.sourceName(), u, err))
		},
	})
	if err != nil {
		addErr(unitOf(pattern), fmt.Errorf("prometheus source %s: %w", p.sourceName(), err))
	}
	var out []ruleFile
	for _, path := range paths {
		out = append(out, ruleFile{unit: unit(path), path: path})
	}
	return out
}

// unitOfMatch names a file a glob matched as the config would write it:
// relative to the config's directory when the pattern is.
func (p *Prometheus) unitOfMatch(pattern, match string) string {
	if filepath.IsAbs(pattern) || p.env.BaseDir == "" {
		return unitOf(match)
	}
	if rel, err := filepath.Rel(p.env.BaseDir, match); err == nil {
		return unitOf(rel)
	}
	return unitOf(match)
}

func unitOf(path string) string { return filepath.ToSlash(filepath.Clean(path)) }

// fileRead is what one file held: its rule groups and the PrometheusRule
// objects they came from, or, for a file that holds no rules, what it is
// instead (skipped says so: "a promtool unit test file (tests:)").
type fileRead struct {
	groups  []group
	objects int
	skipped string
}

// readFile reads and parses one file; any error is the file's. The error
// names the source but not the file: it is reported at the file's unit,
// which names it.
func (p *Prometheus) readFile(f ruleFile) (fileRead, error) {
	data, err := safefile.ReadLimit(f.path, maxFileBytes)
	if err != nil {
		return fileRead{}, fmt.Errorf("prometheus source %s: %w", p.sourceName(), safefile.PlainError(f.path, err))
	}
	read, err := p.parseFile(f.unit, data)
	if err != nil {
		return fileRead{}, fmt.Errorf("prometheus source %s: %s", p.sourceName(), positioned(err.Error()))
	}
	return read, nil
}

// lineColumn is the "line:column: " rulefmt starts an error with.
var lineColumn = regexp.MustCompile(`^(\d+):(\d+): (.*)$`)

// positioned says rulefmt's "5:15: " as "line 5, column 15: " (two
// positions, "4:17: 5:16: ", as "line 4, column 17 and line 5, column
// 16: "), and drops the "0:0: " it writes when it knows no position.
func positioned(msg string) string {
	var at []string
	for {
		m := lineColumn.FindStringSubmatch(msg)
		if m == nil {
			break
		}
		if m[1] != "0" || m[2] != "0" {
			at = append(at, "line "+m[1]+", column "+m[2])
		}
		msg = m[3]
	}
	if len(at) == 0 {
		return msg
	}
	return strings.Join(at, " and ") + ": " + msg
}

// manifest is the part of a Kubernetes object read to find PrometheusRule
// objects in a file, alone, in a stream of documents or in a List.
type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace"`
		Labels    map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec  yaml.Node   `yaml:"spec"`
	Items []yaml.Node `yaml:"items"`
}

// parseFile reads a Prometheus rule file, or the PrometheusRule objects
// in a manifest file. Rule groups are parsed and validated by Prometheus's
// own rulefmt (expressions by its PromQL parser, templates included), so a
// file bfaudit reads is a file Prometheus would load. The file's first
// YAML document says which it is (Prometheus reads only that one):
//
//   - a groups: key: a rule file, read strictly;
//   - null or {}: a rule file without groups, as jsonnet mixins write
//     one that has no rules, and Prometheus loads it so;
//   - apiVersion or kind: Kubernetes objects; a stream or List without a
//     PrometheusRule holds no rules and is skipped;
//   - other YAML (a promtool unit test file, a Prometheus or Alertmanager
//     configuration, a list of scrape targets) holds no rules and is
//     skipped, unless it looks like a mistyped rule file (group:, or rule
//     groups without the groups: key above them), which is an error: a
//     typo must not read as "every rule deleted".
//
// A zero-byte file, one of only spaces or only comments, and text that
// is not YAML are errors, not "no rules": a file emptied or cut short
// while it was written must not read as every rule deleted.
func (p *Prometheus) parseFile(unit string, data []byte) (fileRead, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return fileRead{}, errors.New("the file is empty: not a rule file")
	}
	doc, n, err := firstDocument(data)
	if err != nil || doc == nil && n == 0 {
		return p.ruleFile(unit, data) // rulefmt says why it is not a rule file
	}
	switch {
	case doc == nil, doc.Kind == yaml.MappingNode && len(doc.Content) == 0 && n == 1:
		return fileRead{}, nil // null (every document) or {}: no group
	case doc.Kind == yaml.MappingNode:
		keys := mappingKeys(doc)
		switch {
		case keys["apiVersion"] || keys["kind"]:
			return p.manifestFile(unit, data)
		case keys["groups"] && n > 1:
			return fileRead{}, fmt.Errorf("the groups: key is in YAML document %d, and Prometheus reads only the first document of a rule file", n)
		case keys["groups"]:
			return p.ruleFile(unit, data)
		case mistypedRuleFile(doc):
			return fileRead{}, errors.New("no groups: key: not a rule file")
		}
		return fileRead{skipped: notRules(doc)}, nil
	case doc.Kind == yaml.SequenceNode && !holdsRuleGroups(doc):
		return fileRead{skipped: "YAML lists (not rule groups)"}, nil
	}
	return p.ruleFile(unit, data)
}

// firstDocument finds the first YAML document of a stream that is not
// null, and which one it is (1 for the first). Helm and kustomize write
// streams that start with an empty document ("---" and a "# Source:"
// comment). doc is nil when every document is null (n is then how many
// there were, 0 for a file of only comments).
func firstDocument(data []byte) (doc *yaml.Node, n int, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for n < maxDocuments {
		var root yaml.Node
		err := dec.Decode(&root)
		if errors.Is(err, io.EOF) {
			return nil, n, nil
		}
		if err != nil {
			return nil, n, err
		}
		n++
		if len(root.Content) == 0 {
			continue
		}
		if d := root.Content[0]; d.Kind != yaml.ScalarNode || d.Tag != "!!null" {
			return d, n, nil
		}
	}
	return nil, n, nil
}

// ruleFile parses a Prometheus rule file.
func (p *Prometheus) ruleFile(unit string, data []byte) (fileRead, error) {
	rgs, err := p.parseGroups(data, false)
	if err != nil {
		return fileRead{}, err
	}
	prefix := p.fileURI(unit)
	return fileRead{groups: ruleGroups(rgs, unit, unit, prefix, "", nil)}, nil
}

// manifestFile reads the PrometheusRule objects of a stream of Kubernetes
// objects (or of a List); the other objects are skipped, and a file with
// none holds no rules.
func (p *Prometheus) manifestFile(unit string, data []byte) (fileRead, error) {
	var out fileRead
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		if doc > maxDocuments {
			return fileRead{}, fmt.Errorf("more than %d YAML documents: stopped", maxDocuments)
		}
		var m manifest
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fileRead{}, fmt.Errorf("document %d: %w", doc, err)
		}
		items := []manifest{m}
		if strings.HasSuffix(m.Kind, "List") {
			items = items[:0]
			for i := range m.Items {
				var it manifest
				if err := m.Items[i].Decode(&it); err != nil {
					return fileRead{}, fmt.Errorf("document %d, item %d: %w", doc, i, err)
				}
				items = append(items, it)
			}
		}
		for _, it := range items {
			if it.Kind != "PrometheusRule" {
				continue // other objects of a bundle
			}
			out.objects++
			gs, err := p.objectGroups(unit, it)
			if err != nil {
				return fileRead{}, fmt.Errorf("document %d: %w", doc, err)
			}
			out.groups = append(out.groups, gs...)
		}
	}
	if out.objects == 0 {
		return fileRead{skipped: "Kubernetes objects without a PrometheusRule"}, nil
	}
	return out, nil
}

// objectGroups reads one PrometheusRule of a file: its groups are under
// the file's unit.
func (p *Prometheus) objectGroups(unit string, m manifest) ([]group, error) {
	object, rgs, err := p.parseObject(m)
	if err != nil {
		if object != "" { // the file holds several objects: say which
			return nil, fmt.Errorf("PrometheusRule %s: %w", object, err)
		}
		return nil, err
	}
	prefix := p.fileObjectURI(unit, m.Metadata.Namespace, m.Metadata.Name)
	return ruleGroups(rgs, unit, unit, prefix, object, m.Metadata.Labels), nil
}

// parseObject parses one PrometheusRule's spec, from a file or a cluster,
// whose groups are rule groups with a few operator fields rulefmt does
// not know (ignored). object is its "namespace/name"; an error does not
// name it (a cluster's object is its own unit, which names it).
func (p *Prometheus) parseObject(m manifest) (object string, rgs *rulefmt.RuleGroups, err error) {
	name := m.Metadata.Name
	if name == "" {
		return "", nil, errors.New("a PrometheusRule without metadata.name")
	}
	object = name
	if m.Metadata.Namespace != "" {
		object = m.Metadata.Namespace + "/" + name
	}
	spec, err := yaml.Marshal(&m.Spec)
	if err != nil || m.Spec.Kind == 0 {
		return object, nil, errors.New("no spec")
	}
	rgs, err = p.parseGroups(spec, true)
	if err != nil {
		return object, nil, fmt.Errorf("spec (line numbers within the spec): %w", err)
	}
	return object, rgs, nil
}

// parseGroups runs Prometheus's own parser and validation. A file with no
// groups key at all is refused: Prometheus would load it as empty, but a
// typo (group: instead of groups:) must not read as "every rule deleted".
func (p *Prometheus) parseGroups(data []byte, ignoreUnknown bool) (*rulefmt.RuleGroups, error) {
	var probe struct {
		Groups *yaml.Node `yaml:"groups"`
	}
	if err := yaml.Unmarshal(data, &probe); err == nil && probe.Groups == nil {
		return nil, errors.New("no groups: key: not a rule file")
	}
	rgs, errs := rulefmt.Parse(data, ignoreUnknown, commonmodel.UTF8Validation, p.promql, slog.New(slog.DiscardHandler))
	if len(errs) > 0 {
		return nil, joinFirst(errs, 5)
	}
	return rgs, nil
}

// ruleGroups turns parsed groups into the collector's, read from file
// (empty for a cluster's objects) and reported at scope; group labels
// (Prometheus 3) apply to every rule, rule labels winning.
func ruleGroups(rgs *rulefmt.RuleGroups, file, scope, prefix, object string, objectLabels map[string]string) []group {
	out := make([]group, 0, len(rgs.Groups))
	for _, rg := range rgs.Groups {
		g := group{file: file, name: rg.Name, scope: scope, uriPrefix: groupURI(prefix, rg.Name),
			object: object, objectLabels: objectLabels}
		for _, r := range rg.Rules {
			kind, name := typeAlerting, r.Alert
			if r.Record != "" {
				kind, name = typeRecording, r.Record
			}
			lbls := make(map[string]string, len(rg.Labels)+len(r.Labels))
			for k, v := range rg.Labels {
				lbls[k] = v
			}
			for k, v := range r.Labels {
				lbls[k] = v
			}
			g.rules = append(g.rules, rule{kind: kind, name: name, expr: r.Expr, labels: lbls,
				annotations: r.Annotations, forDur: time.Duration(r.For)})
		}
		out = append(out, g)
	}
	return out
}

// joinFirst joins the first n errors, saying how many more there were.
// rulefmt reports a YAML error once for each of its two decodings, the
// second naming its own type in lower case: each is said once.
func joinFirst(errs []error, n int) error {
	var parts []string
	more := 0
	for _, e := range errs {
		msg := e.Error()
		if slices.ContainsFunc(parts, func(p string) bool { return strings.EqualFold(p, msg) }) {
			continue
		}
		if len(parts) == n {
			more++
			continue
		}
		parts = append(parts, msg)
	}
	if more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return errors.New(strings.Join(parts, "; "))
}
