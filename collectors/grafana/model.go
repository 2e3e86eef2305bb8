package grafana

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// board is one dashboard as read from any of the shapes Grafana keeps it
// in (see decode.go for the shapes): its identity, tags and the queries of
// its panels, with how many panels could not be read.
type board struct {
	UID, Title string
	Tags       []string
	// Labels are those of the Kubernetes object that carries it (a v2
	// resource, a ConfigMap, a GrafanaDashboard), for the selector.
	Labels map[string]string
	// Schema is the schema it was read as: "classic" or the resource
	// version ("v2beta1", "v1beta1").
	Schema  string
	Queries []query
	// Unread counts the panels whose queries were not read: a panel that
	// is not an object, targets that are not a list, a library panel whose
	// model is not in the dashboard, an element kind not known, queries
	// past maxQueries. A board with Unread > 0 was read only in part.
	Unread int
	Meta   boardMeta
	// Where names it inside its file ("ConfigMap grafana-dashboard-x, key
	// x.json"); empty for a file that is one dashboard.
	Where string
}

// boardMeta is what a saved answer or a resource says about a dashboard
// beside its model.
type boardMeta struct {
	Created, Updated            time.Time
	Version                     int64
	FolderUID, FolderTitle, URL string
}

// object is one JSON object, its members undecoded.
type object map[string]json.RawMessage

// asObject decodes raw as a JSON object; ok is false for anything else
// (null included).
func asObject(raw json.RawMessage) (object, bool) {
	raw = trimJSON(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var o object
	if json.Unmarshal(raw, &o) != nil {
		return nil, false
	}
	return o, true
}

func trimJSON(raw json.RawMessage) json.RawMessage {
	for len(raw) > 0 && (raw[0] == ' ' || raw[0] == '\n' || raw[0] == '\r' || raw[0] == '\t') {
		raw = raw[1:]
	}
	return raw
}

// isNull reports a member that is absent or null.
func isNull(raw json.RawMessage) bool {
	raw = trimJSON(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// str is a member's string value; "" when absent or not a string.
func (o object) str(key string) string {
	var s string
	if raw, ok := o[key]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

func (o object) has(key string) bool {
	_, ok := o[key]
	return ok
}

func (o object) obj(key string) object {
	m, _ := asObject(o[key])
	return m
}

// strMap is a member that maps names to strings (labels, annotations);
// values of other types are left out.
func (o object) strMap(key string) map[string]string {
	var m map[string]json.RawMessage
	if json.Unmarshal(o[key], &m) != nil || len(m) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, raw := range m {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out[k] = s
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// identity reads a model's uid, title and tags; a member of the wrong
// type makes the model unreadable (Grafana would refuse it too).
func identity(m object) (uid, title string, tags []string, err error) {
	if uid, err = optString(m, "uid"); err != nil {
		return
	}
	if title, err = optString(m, "title"); err != nil {
		return
	}
	if raw := m["tags"]; !isNull(raw) {
		if json.Unmarshal(raw, &tags) != nil {
			return "", "", nil, fmt.Errorf("tags: not a list of strings")
		}
	}
	return uid, title, tags, nil
}

func optString(m object, key string) (string, error) {
	raw := m[key]
	if isNull(raw) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%s: not a string", key)
	}
	return s, nil
}

// optArray decodes a member that must be a list when present.
func optArray(m object, key string) ([]json.RawMessage, error) {
	raw := m[key]
	if isNull(raw) {
		return nil, nil
	}
	var out []json.RawMessage
	if json.Unmarshal(raw, &out) != nil {
		return nil, fmt.Errorf("%s: not a list", key)
	}
	return out, nil
}

// decodeClassic reads a classic dashboard model (schemaVersion 1 to 42):
// panels, the panels of collapsed rows, and the rows of the old schema,
// up to maxPanelDepth levels; a library panel's queries come from the
// export's __elements when the panel carries none.
func decodeClassic(m object) (board, error) {
	var b board
	var err error
	if b.UID, b.Title, b.Tags, err = identity(m); err != nil {
		return b, err
	}
	b.Schema = "classic"
	panels, err := optArray(m, "panels")
	if err != nil {
		return b, err
	}
	rows, err := optArray(m, "rows")
	if err != nil {
		return b, err
	}
	w := classicWalker{b: &b, library: m.obj("__elements")}
	w.walk(panels, 0)
	w.walk(rows, 0)
	return b, nil
}

type classicWalker struct {
	b       *board
	library object // __elements of an export: library panel uid -> {model}
	full    bool   // maxQueries reached
}

func (w *classicWalker) walk(ps []json.RawMessage, depth int) {
	if len(ps) == 0 {
		return
	}
	if depth > maxPanelDepth {
		w.b.Unread += len(ps)
		return
	}
	for _, raw := range ps {
		p, ok := asObject(raw)
		if !ok {
			w.b.Unread++
			continue
		}
		title := p.str("title")
		targets, err := optArray(p, "targets")
		switch {
		case err != nil:
			w.b.Unread++
		case len(targets) == 0 && p.has("libraryPanel"):
			// A library panel's model lives in the library, not here,
			// unless the export carries it in __elements.
			if lib := w.libraryTargets(p.obj("libraryPanel")); lib != nil {
				w.add(title, lib)
			} else {
				w.b.Unread++
			}
		default:
			w.add(title, targets)
		}
		nested, err := optArray(p, "panels")
		if err != nil {
			w.b.Unread++
			continue
		}
		w.walk(nested, depth+1)
	}
}

func (w *classicWalker) libraryTargets(ref object) []json.RawMessage {
	uid := ref.str("uid")
	if uid == "" || w.library == nil {
		return nil
	}
	model := w.library.obj(uid).obj("model")
	if model == nil {
		return nil
	}
	targets, err := optArray(model, "targets")
	if err != nil || len(targets) == 0 {
		return nil
	}
	return targets
}

// add records the query texts of a panel's targets; a target that is not
// an object leaves the panel read in part.
func (w *classicWalker) add(title string, targets []json.RawMessage) {
	where := `panel "` + clip(title, 120) + `"`
	bad := false
	for _, raw := range targets {
		t, ok := asObject(raw)
		if !ok {
			bad = true
			continue
		}
		if !addTexts(w.b, where, t, &w.full) {
			return
		}
	}
	if bad {
		w.b.Unread++
	}
}

// addTexts appends the query texts of one target; false (and the board
// read in part, once) when maxQueries is reached.
func addTexts(b *board, where string, t object, full *bool) bool {
	for _, text := range targetTexts(t) {
		if len(b.Queries) >= maxQueries {
			if !*full {
				*full = true
				b.Unread++
			}
			return false
		}
		b.Queries = append(b.Queries, query{where: where, text: text})
	}
	return true
}

// decodeV2 reads the spec of a v2 dashboard (dashboard.grafana.app
// v2alpha1, v2beta1, v2): its elements, each a Panel whose queries are
// data.spec.queries[].spec.query.spec, or a LibraryPanel whose queries
// live in the library (not read).
func decodeV2(spec object) (board, error) {
	var b board
	var err error
	if b.UID, b.Title, b.Tags, err = identity(spec); err != nil {
		return b, err
	}
	raw := spec["elements"]
	if isNull(raw) {
		return b, nil
	}
	var elements map[string]json.RawMessage
	if json.Unmarshal(raw, &elements) != nil {
		return b, fmt.Errorf("elements: not an object")
	}
	names := make([]string, 0, len(elements))
	for name := range elements {
		names = append(names, name)
	}
	sort.Strings(names)
	full := false
	for _, name := range names {
		el, ok := asObject(elements[name])
		if !ok || el.str("kind") != "Panel" {
			b.Unread++ // a LibraryPanel, or a kind this reader does not know
			continue
		}
		ps := el.obj("spec")
		title := ps.str("title")
		if title == "" {
			title = name
		}
		queries, err := optArray(ps.obj("data").obj("spec"), "queries")
		if err != nil || ps == nil {
			b.Unread++
			continue
		}
		where := `panel "` + clip(title, 120) + `"`
		bad := false
		for _, rq := range queries {
			q := mustObject(rq).obj("spec").obj("query").obj("spec")
			if q == nil {
				bad = true
				continue
			}
			if !addTexts(&b, where, q, &full) {
				break
			}
		}
		if bad {
			b.Unread++
		}
	}
	return b, nil
}

func mustObject(raw json.RawMessage) object {
	o, _ := asObject(raw)
	return o
}

// schemaOf is the version of an apiVersion ("dashboard.grafana.app/v2beta1"
// -> "v2beta1").
func schemaOf(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[i+1:]
	}
	return apiVersion
}
