package prometheus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
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
func (p *Prometheus) files(addErr func(scope string, err error)) []ruleFile {
	var out []ruleFile
	seen := map[string]bool{}
	add := func(f ruleFile) {
		if !seen[f.unit] {
			seen[f.unit] = true
			out = append(out, f)
		}
	}
	for _, pattern := range p.RuleFiles {
		resolved := p.resolve(pattern)
		if !hasMeta(pattern) {
			add(ruleFile{unit: unitOf(pattern), path: resolved})
			continue
		}
		matches, err := filepath.Glob(resolved)
		if err != nil { // checked at Init; kept for safety
			addErr(unitOf(staticDir(pattern)), fmt.Errorf("prometheus source %s: rule_files %q: %v", p.sourceName(), pattern, err))
			continue
		}
		if len(matches) == 0 {
			dir := staticDir(pattern)
			if fi, err := os.Stat(p.resolve(dir)); err != nil || !fi.IsDir() {
				addErr(unitOf(dir), fmt.Errorf("prometheus source %s: rule_files %q: directory %s does not exist or cannot be read", p.sourceName(), pattern, unitOf(dir)))
			}
			continue
		}
		for _, m := range matches {
			add(ruleFile{unit: p.unitOfMatch(pattern, m), path: m})
		}
	}
	return out
}

func (p *Prometheus) resolve(f string) string {
	if !filepath.IsAbs(f) && p.baseDir != "" {
		return filepath.Join(p.baseDir, f)
	}
	return f
}

// unitOfMatch names a file a glob matched as the config would write it:
// relative to the config's directory when the pattern is.
func (p *Prometheus) unitOfMatch(pattern, match string) string {
	if filepath.IsAbs(pattern) || p.baseDir == "" {
		return unitOf(match)
	}
	if rel, err := filepath.Rel(p.baseDir, match); err == nil {
		return unitOf(rel)
	}
	return unitOf(match)
}

func unitOf(path string) string { return filepath.ToSlash(filepath.Clean(path)) }

func hasMeta(path string) bool { return strings.ContainsAny(path, `*?[\`) }

// staticDir is the directory part of a glob before its first wildcard.
func staticDir(pattern string) string {
	dir := filepath.Dir(pattern)
	for hasMeta(dir) {
		dir = filepath.Dir(dir)
	}
	return dir
}

// readFile reads and parses one file; any error is the file's.
func (p *Prometheus) readFile(f ruleFile) ([]group, error) {
	data, err := safefile.ReadLimit(f.path, maxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("prometheus source %s: %s: %w", p.sourceName(), f.unit, plainReadError(f.path, err))
	}
	groups, err := p.parseFile(f.unit, data)
	if err != nil {
		// rulefmt starts its message with "line:column: "; say
		// "file:line:column: " as every parser of bfaudit says "file:line: ".
		if m := lineColumn.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("prometheus source %s: %s:%s: %s", p.sourceName(), f.unit, m[1], m[2])
		}
		return nil, fmt.Errorf("prometheus source %s: %s: %w", p.sourceName(), f.unit, err)
	}
	return groups, nil
}

// lineColumn is the "line:column: " rulefmt starts an error with.
var lineColumn = regexp.MustCompile(`^(\d+:\d+): (.*)$`)

// plainReadError drops the resolved path from a read error: the message
// names the file by its unit.
func plainReadError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	if msg, ok := strings.CutPrefix(err.Error(), path+": "); ok {
		return errors.New(msg)
	}
	return err
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
// file bfaudit reads is a file Prometheus would load. A zero-byte or
// empty file is an error, not "no rules".
func (p *Prometheus) parseFile(unit string, data []byte) ([]group, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the file is empty: not a rule file")
	}
	var head manifest
	if err := yaml.Unmarshal(data, &head); err != nil || (head.Kind == "" && head.APIVersion == "") {
		rgs, err := p.parseGroups(data, false)
		if err != nil {
			return nil, err
		}
		prefix := p.uriBase() + "/files/" + pathSegments(unit)
		return ruleGroups(rgs, unit, unit, prefix, "", nil), nil
	}
	var out []group
	objects := 0
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		if doc > maxDocuments {
			return nil, fmt.Errorf("more than %d YAML documents: stopped", maxDocuments)
		}
		var m manifest
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		items := []manifest{m}
		if strings.HasSuffix(m.Kind, "List") {
			items = items[:0]
			for i := range m.Items {
				var it manifest
				if err := m.Items[i].Decode(&it); err != nil {
					return nil, fmt.Errorf("document %d, item %d: %w", doc, i, err)
				}
				items = append(items, it)
			}
		}
		for _, it := range items {
			if it.Kind != "PrometheusRule" {
				continue // other objects of a bundle
			}
			objects++
			gs, err := p.objectGroups(unit, it)
			if err != nil {
				return nil, fmt.Errorf("document %d: %w", doc, err)
			}
			out = append(out, gs...)
		}
	}
	if objects == 0 {
		return nil, fmt.Errorf("neither a rule file (groups:) nor a file of PrometheusRule objects (kind %q)", clip(head.Kind, 60))
	}
	return out, nil
}

// objectGroups reads one PrometheusRule of a file: its groups are under
// the file's unit.
func (p *Prometheus) objectGroups(unit string, m manifest) ([]group, error) {
	object, rgs, err := p.parseObject(m)
	if err != nil {
		return nil, err
	}
	prefix := p.uriBase() + "/files/" + pathSegments(unit) + "/" + segment(orDash(m.Metadata.Namespace)) + "/" + segment(m.Metadata.Name)
	return ruleGroups(rgs, unit, unit, prefix, object, m.Metadata.Labels), nil
}

// parseObject parses one PrometheusRule's spec, from a file or a cluster,
// whose groups are rule groups with a few operator fields rulefmt does
// not know (ignored). object is its "namespace/name".
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
		return "", nil, fmt.Errorf("PrometheusRule %s: no spec", object)
	}
	rgs, err = p.parseGroups(spec, true)
	if err != nil {
		return "", nil, fmt.Errorf("PrometheusRule %s: spec (line numbers within the spec): %w", object, err)
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
		g := group{file: file, name: rg.Name, scope: scope, uriPrefix: prefix + "/" + segment(rg.Name),
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
func joinFirst(errs []error, n int) error {
	var parts []string
	for i, e := range errs {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(errs)-n))
			break
		}
		parts = append(parts, e.Error())
	}
	return errors.New(strings.Join(parts, "; "))
}
