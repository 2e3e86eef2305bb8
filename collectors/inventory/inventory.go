// Package inventory collects artifacts from JSON or YAML files exported by
// other tools, for systems that have no collector of their own yet
// (feature flags, dashboards, alerts, notebooks).
package inventory

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sample string

func init() {
	collectors.Register("inventory", func() collectors.Collector { return &Inventory{} })
}

// Inventory reads artifact lists from files.
type Inventory struct {
	Files []string `mapstructure:"files"`
	// System names the artifacts' system when an entry does not.
	System string `mapstructure:"system"`
	// Base resolves relative paths: the config file's directory.
	Base string `mapstructure:"-"`
}

// SetBaseDir resolves relative paths against the config file's directory.
func (i *Inventory) SetBaseDir(dir string) { i.Base = dir }

// SampleConfig documents the source entry.
func (i *Inventory) SampleConfig() string { return sample }

// Init checks the config.
func (i *Inventory) Init() error {
	if len(i.Files) == 0 {
		return errors.New("files: missing; list one or more JSON or YAML inventory files")
	}
	return nil
}

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

// Collect reads each file; a bad file or entry is reported against that
// file and the rest are read.
func (i *Inventory) Collect(ctx context.Context, sink collectors.Sink) error {
	for _, f := range i.Files {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		path := f
		if !filepath.IsAbs(path) && i.Base != "" {
			path = filepath.Join(i.Base, f)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			sink.AddError(f, fmt.Errorf("inventory: %w", err))
			continue
		}
		arts, errs := Parse(f, data, i.System)
		for _, a := range arts {
			sink.AddArtifact(a)
		}
		for _, e := range errs {
			sink.AddError(f, e)
		}
	}
	return nil
}

var lineRE = regexp.MustCompile(`line (\d+): `)

// Parse reads one inventory file (JSON is read as YAML, so both give line
// numbers). Bad entries are returned as errors naming file, line and key;
// good entries are kept.
func Parse(path string, data []byte, defaultSystem string) ([]model.Artifact, []error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, []error{fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	list := findKey(root.Content[0], "artifacts")
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil, []error{fmt.Errorf("%s:%d: artifacts: missing; expected a list of artifacts", path, root.Content[0].Line)}
	}
	var out []model.Artifact
	var errs []error
	for idx, n := range list.Content {
		a, err := parseEntry(n, defaultSystem)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: artifacts[%d].%v", path, n.Line, idx, err))
			continue
		}
		out = append(out, a)
	}
	return out, errs
}

func parseEntry(n *yaml.Node, defaultSystem string) (model.Artifact, error) {
	var d artifactDoc
	dec := yaml.NewDecoder(bytes.NewReader(mustMarshal(n)))
	dec.KnownFields(true)
	if err := dec.Decode(&d); err != nil {
		msg := lineRE.ReplaceAllString(strings.TrimPrefix(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "), "yaml: "), "")
		return model.Artifact{}, fmt.Errorf("%s", strings.Replace(msg, "field ", "", 1))
	}
	a := model.Artifact{
		Kind: model.Kind(d.Kind), System: firstNonEmpty(d.System, defaultSystem, "inventory"), Scope: d.Scope,
		URI: d.URI, Name: d.Name, BackfillID: d.BackfillID, Owner: d.Owner, Labels: d.Labels,
		State: model.State(d.State), Attributes: d.Attributes,
	}
	if !a.Kind.IsValid() {
		return a, fmt.Errorf("kind: unknown kind %q (expected one of %s)", d.Kind, kindList())
	}
	if a.URI == "" {
		return a, errors.New("uri: missing; every artifact needs a stable URI")
	}
	if !a.State.IsValid() {
		return a, fmt.Errorf("state: unknown state %q (expected enabled, paused, disabled, active, expired or deleted)", d.State)
	}
	for _, t := range []struct {
		key string
		in  string
		out *time.Time
	}{{"created_at", d.CreatedAt, &a.CreatedAt}, {"last_used_at", d.LastUsedAt, &a.LastUsedAt},
		{"modified_at", d.ModifiedAt, &a.ModifiedAt}, {"expires_at", d.ExpiresAt, &a.ExpiresAt}} {
		v, err := parseTime(t.in)
		if err != nil {
			return a, fmt.Errorf("%s: %v", t.key, err)
		}
		*t.out = v
	}
	return a, nil
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

func mustMarshal(n *yaml.Node) []byte {
	b, err := yaml.Marshal(n)
	if err != nil {
		return nil
	}
	return b
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
