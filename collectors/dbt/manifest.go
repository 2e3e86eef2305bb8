package dbt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// manifestVersions are the manifest schemas read: dbt 1.5 (v9), 1.6
// (v10), 1.7 (v11), 1.8 onwards (v12), and v20, which dbt Fusion wrote
// before it called the same shape v12 (its 2.0.0-preview.98 changelog:
// "conformant with the v12 schema"). Older ones name relations
// differently (no relation_name before v9's dbt 1.5, no groups).
var manifestVersions = []string{
	"https://schemas.getdbt.com/dbt/manifest/v9.json",
	"https://schemas.getdbt.com/dbt/manifest/v10.json",
	"https://schemas.getdbt.com/dbt/manifest/v11.json",
	"https://schemas.getdbt.com/dbt/manifest/v12.json",
	"https://schemas.getdbt.com/dbt/manifest/v20.json",
}

// manifestReadable words manifestVersions for errors.
const manifestReadable = "v9, v10, v11, v12 and v20 (dbt 1.5 and later, and dbt Fusion)"

// relationTypes are the node types that are tables in the warehouse;
// tests, analyses, operations and ephemeral models are not.
var relationTypes = map[string]bool{"model": true, "seed": true, "snapshot": true, "source": true}

// Manifest is what lineage needs from one manifest.json.
type Manifest struct {
	// Edges are the parent -> child edges between relations, Via the
	// child's unique_id.
	Edges []model.Edge
	// Relations are the manifest's tables, by unique_id.
	Relations map[string]Relation
	// Nodes is how many nodes and sources the manifest holds, tests,
	// macros' operations and ephemeral models included.
	Nodes int
}

// Relation is one node that is a table.
type Relation struct {
	UniqueID string
	Table    string // model.TableRef form
	Select   string // what `dbt build --select` takes
	Owner    string
	// View says the node is materialized as a view: it holds no rows of
	// its own.
	View bool
}

type manifestDoc struct {
	Metadata  metadataDoc         `json:"metadata"`
	Nodes     map[string]nodeDoc  `json:"nodes"`
	Sources   map[string]nodeDoc  `json:"sources"`
	Groups    map[string]groupDoc `json:"groups"`
	ParentMap map[string][]string `json:"parent_map"`
}

type metadataDoc struct {
	SchemaVersion *string `json:"dbt_schema_version"`
	GeneratedAt   string  `json:"generated_at"`
}

type nodeDoc struct {
	UniqueID     string                     `json:"unique_id"`
	ResourceType string                     `json:"resource_type"`
	Name         string                     `json:"name"`
	Database     *string                    `json:"database"`
	Schema       string                     `json:"schema"`
	Alias        string                     `json:"alias"`
	Identifier   string                     `json:"identifier"`
	RelationName *string                    `json:"relation_name"`
	SourceName   string                     `json:"source_name"`
	Group        *string                    `json:"group"`
	Version      json.RawMessage            `json:"version"`
	Meta         map[string]json.RawMessage `json:"meta"`
	Config       struct {
		Materialized string                     `json:"materialized"`
		Meta         map[string]json.RawMessage `json:"meta"`
	} `json:"config"`
	DependsOn struct {
		Nodes []string `json:"nodes"`
	} `json:"depends_on"`
}

type groupDoc struct {
	Name  string `json:"name"`
	Owner struct {
		Email json.RawMessage `json:"email"` // a string, or a list since v12
		Name  *string         `json:"name"`
	} `json:"owner"`
}

// ParseManifest reads one manifest.json. path names the file in errors,
// which read `path[:line]: key: what`.
func ParseManifest(path string, data []byte) (*Manifest, error) {
	var head struct {
		Metadata *metadataDoc `json:"metadata"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(path, data, err)
	}
	if head.Metadata == nil {
		return nil, fmt.Errorf("%s: metadata: missing; is this a dbt manifest.json?", path)
	}
	if err := checkVersion(path, head.Metadata.SchemaVersion, manifestVersions, "manifest", manifestReadable); err != nil {
		return nil, err
	}
	var doc manifestDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, jsonError(path, data, err)
	}
	if doc.Nodes == nil && doc.Sources == nil {
		return nil, fmt.Errorf("%s: nodes: missing; a manifest lists its nodes and sources", path)
	}
	return doc.lineage(path)
}

// lineage turns the nodes into relations and the parent map into edges
// between them. An edge through a node that is not a table (an ephemeral
// model, inlined as a CTE) goes on to that node's own parents: the child
// is derived from them.
func (doc *manifestDoc) lineage(path string) (*Manifest, error) {
	all := map[string]*nodeDoc{}
	m := &Manifest{Relations: map[string]Relation{}, Nodes: len(doc.Nodes) + len(doc.Sources)}
	for _, set := range []map[string]nodeDoc{doc.Nodes, doc.Sources} {
		for id, n := range set {
			n := n
			if n.UniqueID == "" {
				n.UniqueID = id
			}
			all[id] = &n
			rel, ok, err := doc.relation(&n)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", path, keyOf(&n, id), err)
			}
			if ok {
				m.Relations[id] = rel
			}
		}
	}
	parents := func(id string) []string {
		if doc.ParentMap != nil {
			return doc.ParentMap[id]
		}
		if n := all[id]; n != nil {
			return n.DependsOn.Nodes
		}
		return nil
	}
	children := make([]string, 0, len(m.Relations))
	for id := range m.Relations {
		children = append(children, id)
	}
	slices.Sort(children)
	for _, child := range children {
		seen := map[string]bool{child: true}
		var found []string
		var walk func(id string)
		walk = func(id string) {
			for _, p := range parents(id) {
				if seen[p] {
					continue
				}
				seen[p] = true
				if _, ok := m.Relations[p]; ok {
					found = append(found, p)
				} else if n := all[p]; n != nil && n.ResourceType == "model" {
					walk(p) // ephemeral: its parents feed the child
				}
			}
		}
		walk(child)
		slices.Sort(found)
		for _, p := range found {
			m.Edges = append(m.Edges, model.Edge{Parent: m.Relations[p].Table, Child: m.Relations[child].Table, System: System, Via: child})
		}
	}
	return m, nil
}

// relation says whether a node is a table and what it is called.
func (doc *manifestDoc) relation(n *nodeDoc) (Relation, bool, error) {
	if !relationTypes[n.ResourceType] || n.Config.Materialized == "ephemeral" {
		return Relation{}, false, nil
	}
	table := ""
	if n.RelationName != nil {
		table = model.TableRef(*n.RelationName)
	}
	if table == "" {
		name := n.Alias
		if n.ResourceType == "source" {
			name = n.Identifier
		}
		if name == "" {
			name = n.Name
		}
		if name == "" {
			return Relation{}, false, errors.New("relation_name, alias and name: all missing; the node names no table")
		}
		parts := []string{n.Schema, name}
		if n.Database != nil && *n.Database != "" {
			parts = append([]string{*n.Database}, parts...)
		}
		table = model.TableRef(strings.Join(parts, "."))
	}
	sel := n.Name
	if n.ResourceType == "source" {
		sel = "source:" + n.SourceName + "." + n.Name
	} else if v := versionOf(n.Version); v != "" {
		sel += ".v" + v // a versioned model: dbt selects fct_orders.v2
	}
	owner, err := doc.owner(n)
	if err != nil {
		return Relation{}, false, err
	}
	view := n.ResourceType == "model" && strings.EqualFold(n.Config.Materialized, "view")
	return Relation{UniqueID: n.UniqueID, Table: table, Select: sel, Owner: owner, View: view}, true, nil
}

// owner is the node's meta.owner, else its config's, else its group's
// owner (email, else name).
func (doc *manifestDoc) owner(n *nodeDoc) (string, error) {
	for _, m := range []struct {
		key  string
		meta map[string]json.RawMessage
	}{{"meta.owner", n.Meta}, {"config.meta.owner", n.Config.Meta}} {
		if raw, ok := m.meta["owner"]; ok {
			s, err := names(raw)
			if err != nil {
				return "", fmt.Errorf("%s: %w", m.key, err)
			}
			if s != "" {
				return s, nil
			}
		}
	}
	if n.Group == nil || *n.Group == "" {
		return "", nil
	}
	for _, g := range doc.Groups {
		if g.Name != *n.Group {
			continue
		}
		s, err := names(g.Owner.Email)
		if err != nil {
			return "", fmt.Errorf("group %s: owner.email: %w", g.Name, err)
		}
		if s == "" && g.Owner.Name != nil {
			s = *g.Owner.Name
		}
		return s, nil
	}
	return "", nil
}

// names reads a string or a list of strings (joined with ", "); null is "".
func names(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return strings.TrimSpace(s), nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", errors.New("expected a string or a list of strings")
	}
	return strings.Join(list, ", "), nil
}

// versionOf reads a model version, a string or a number.
func versionOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func keyOf(n *nodeDoc, id string) string {
	if n.ResourceType == "source" {
		return "sources." + id
	}
	return "nodes." + id
}

// checkVersion accepts only the listed schema versions.
func checkVersion(path string, v *string, known []string, what, readable string) error {
	if v == nil || *v == "" {
		return fmt.Errorf("%s: metadata.dbt_schema_version: missing; is this a dbt %s file?", path, what)
	}
	if slices.Contains(known, *v) {
		return nil
	}
	return fmt.Errorf("%s: metadata.dbt_schema_version: %q is not supported; bfaudit reads %s %s", path, *v, what, readable)
}

// jsonError words a decoding error as `path:line: key: what`.
func jsonError(path string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s:%d: invalid JSON: %s", path, lineAt(data, syn.Offset), syn.Error())
	case errors.As(err, &typ):
		key := typ.Field
		if key == "" {
			key = "(top level)"
		}
		return fmt.Errorf("%s:%d: %s: expected %s, got %s", path, lineAt(data, typ.Offset), key, kindName(typ.Type), typ.Value)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// kindName says a Go type in JSON's words.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return kindName(t.Elem())
	}
	return "a number"
}

func lineAt(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	return bytes.Count(data[:offset], []byte("\n")) + 1
}
