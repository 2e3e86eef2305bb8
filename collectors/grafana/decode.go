package grafana

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/internal/remote"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// The shapes a dashboard is kept in, each read by decodeDocs:
//
//   - the JSON model as exported from the UI or committed to git: a bare
//     object with panels (or the rows of the old schema), title, uid,
//     schemaVersion; the export "for sharing externally" adds __inputs,
//     __requires and __elements (library panels);
//   - the classic API's answer {"dashboard": ..., "meta": ...}, and the
//     import body {"dashboard": ..., "folderUid": ..., "overwrite": ...};
//   - a resource of kind Dashboard: dashboard.grafana.app v0alpha1,
//     v1alpha1, v1beta1, v1 (spec is the classic model) and v2alpha1,
//     v2beta1, v2 (spec is the v2 schema: elements and layout), as the
//     /apis API answers and the UI's "export as code" writes; Grizzly's
//     grizzly.grafana.com resources (spec an object or a JSON string); a
//     gdg backup wrapping one ({"resource": ...});
//   - a bare v2 spec (elements and layout);
//   - Kubernetes objects: a ConfigMap whose data keys *.json hold models
//     (kube-prometheus, the Grafana sidecar), a grafana-operator
//     GrafanaDashboard (spec.json, spec.gzipJson, or spec.configMapRef to
//     a ConfigMap of the same file), a GrafanaManifest (spec.template),
//     and any List of them (ConfigMapList, List, DashboardList);
//   - a JSON array, or several YAML documents, of any of these; an object
//     mapping names to them (a jsonnet mixin's grafanaDashboards).
//
// Anything else is not a dashboard: it is skipped, and said so.

// maxNesting caps how deep wrappers, lists and resources are followed.
const maxNesting = 6

// maxGzipBytes caps a GrafanaDashboard's gzipJson once inflated.
const maxGzipBytes = 64 << 20

// decoded is what one file or answer holds.
type decoded struct {
	boards []board
	// skipped names the objects that are not dashboards ("kind
	// Deployment grafana").
	skipped []string
	// elsewhere names the dashboards whose model is not in the file (a
	// GrafanaDashboard with spec.url): not read.
	elsewhere []string
	// errs are the dashboards that cannot be read, each naming where.
	errs []error
}

// err joins the unreadable models into one error; nil when none.
func (d decoded) err() error {
	if len(d.errs) == 0 {
		return nil
	}
	msgs := make([]string, len(d.errs))
	for i, e := range d.errs {
		msgs[i] = e.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}

// partial counts the boards read only in part.
func (d decoded) partial() int {
	n := 0
	for _, b := range d.boards {
		if b.Unread > 0 {
			n++
		}
	}
	return n
}

// around is what the objects around a model say about it.
type around struct {
	where       string // "ConfigMap x, key y.json"
	uid         string // the uid over the model's (a resource's name, spec.uid)
	fallbackUID string // the uid when the model has none (a ConfigMap key)
	labels      map[string]string
	meta        boardMeta
}

func (c around) at(where string) around {
	if c.where != "" && where != "" {
		where = c.where + ", " + where
	} else if where == "" {
		where = c.where
	}
	c.where = where
	return c
}

// decodeDocs reads every dashboard of a file; name decides JSON or YAML
// ("" is a JSON answer). An error is a file that does not parse at all;
// a dashboard inside it that cannot be read is in errs.
func decodeDocs(name string, data []byte) (decoded, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var docs []json.RawMessage
	if isYAML(name) {
		var err error
		if docs, err = yamlDocs(data); err != nil {
			return decoded{}, err
		}
	} else {
		var v json.RawMessage
		if err := remote.Unmarshal(data, &v); err != nil {
			return decoded{}, err
		}
		docs = []json.RawMessage{v}
	}
	d := decoder{configMaps: map[string]object{}, taken: map[[2]string]bool{}}
	var items []item
	for i, doc := range docs {
		where := ""
		if len(docs) > 1 {
			where = "document " + strconv.Itoa(i+1)
		}
		items = append(items, flatten(doc, where, 0)...)
	}
	// A GrafanaDashboard may read a key of a ConfigMap in the same file:
	// that key is its dashboard, not the ConfigMap's.
	for _, it := range items {
		o, _ := asObject(it.raw)
		switch o.str("kind") {
		case "ConfigMap":
			if name := o.obj("metadata").str("name"); name != "" {
				d.configMaps[name] = o
			}
		case "GrafanaDashboard":
			if ref := o.obj("spec").obj("configMapRef"); ref != nil {
				d.taken[[2]string{ref.str("name"), ref.str("key")}] = true
			}
		}
	}
	for _, it := range items {
		d.value(it.raw, around{where: it.where}, 0, false)
	}
	return d.out, nil
}

type decoder struct {
	out        decoded
	configMaps map[string]object  // name -> ConfigMap of this file
	taken      map[[2]string]bool // ConfigMap name, key read by a GrafanaDashboard
}

type item struct {
	raw   json.RawMessage
	where string
}

// flatten expands JSON arrays and Kubernetes lists into their items.
func flatten(raw json.RawMessage, where string, depth int) []item {
	raw = trimJSON(raw)
	if depth < maxNesting && len(raw) > 0 && raw[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) == nil {
			var out []item
			for i, e := range elems {
				out = append(out, flatten(e, joinWhere(where, "item "+strconv.Itoa(i+1)), depth+1)...)
			}
			return out
		}
	}
	if o, ok := asObject(raw); ok && depth < maxNesting && strings.HasSuffix(o.str("kind"), "List") && o.has("items") {
		return flatten(o["items"], where, depth+1)
	}
	return []item{{raw, where}}
}

func joinWhere(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}

func isYAML(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// yamlDocs converts each YAML document of data to JSON.
func yamlDocs(data []byte) ([]json.RawMessage, error) {
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []json.RawMessage
	for n := 1; ; n++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("not YAML: %s", clip(err.Error(), 200))
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("not YAML (document %d): %s", n, clip(err.Error(), 200))
		}
		if isNull(j) {
			continue // an empty or comment-only document
		}
		out = append(out, j)
	}
}

func (d *decoder) fail(c around, err error) {
	if c.where != "" {
		err = fmt.Errorf("%s: %w", c.where, err)
	}
	d.out.errs = append(d.out.errs, err)
}

func (d *decoder) skip(c around, what string) {
	d.out.skipped = append(d.out.skipped, joinWhere(c.where, what))
}

// value reads one object; asDashboard says the object around it (an
// answer's "dashboard", a GrafanaDashboard's json) holds a dashboard, so
// an object that is neither a resource nor a v2 spec is a classic model.
func (d *decoder) value(raw json.RawMessage, c around, depth int, asDashboard bool) {
	o, ok := asObject(raw)
	if !ok {
		if asDashboard {
			d.fail(c, errors.New("the dashboard model is not an object"))
		} else {
			d.skip(c, "a "+jsonType(raw))
		}
		return
	}
	if depth > maxNesting {
		d.fail(c, errors.New("wrappers nested too deep"))
		return
	}
	kind := o.str("kind")
	switch {
	case kind == "ConfigMap":
		d.configMap(o, c, depth)
	case kind == "GrafanaDashboard":
		d.operatorDashboard(o, c, depth)
	case kind == "GrafanaManifest" && o.obj("spec").has("template"):
		d.value(o.obj("spec")["template"], c.at("GrafanaManifest "+name(o)), depth+1, true)
	case kind == "Dashboard" && o.has("spec"):
		d.resource(o, c)
	case kind != "" && !isClassic(o):
		d.skip(c, strings.TrimSpace("kind "+kind+" "+name(o)))
	case o.has("dashboard"):
		d.answer(o, c, depth)
	case o.obj("resource") != nil:
		d.value(o["resource"], c, depth+1, true) // a gdg backup
	case isV2Spec(o):
		d.model(o, "v2", c)
	case isClassic(o) || asDashboard:
		d.model(o, "classic", c)
	case isDashboardMap(o):
		d.dashboardMap(o, c, depth)
	default:
		d.skip(c, "an object with "+keyList(o))
	}
}

// looksLikeDashboard says whether an object is one of the shapes above
// by its own members (a resource, an answer, a model, a v2 spec).
func looksLikeDashboard(o object) bool {
	k := o.str("kind")
	return (k == "Dashboard" && o.has("spec")) || k == "GrafanaDashboard" ||
		(k == "" && (o.obj("dashboard") != nil || isClassic(o) || isV2Spec(o)))
}

// isDashboardMap says whether an object maps names to dashboards, as a
// jsonnet mixin's grafanaDashboards or Grizzly's resources do: every
// member an object, one or more of them a dashboard.
func isDashboardMap(o object) bool {
	found := false
	for _, raw := range o {
		m, ok := asObject(raw)
		if !ok {
			return false
		}
		if looksLikeDashboard(m) {
			found = true
		}
	}
	return found
}

// dashboardMap reads each member of a map of dashboards.
func (d *decoder) dashboardMap(o object, c around, depth int) {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kc := c.at("member " + clip(k, 80))
		if kc.fallbackUID == "" {
			kc.fallbackUID = strings.TrimSuffix(k, path.Ext(k))
		}
		d.value(o[k], kc, depth+1, false)
	}
}

func isClassic(o object) bool {
	return o.has("panels") || o.has("rows") || o.has("schemaVersion")
}

func isV2Spec(o object) bool {
	return o.has("elements") && (o.has("layout") || o.has("title"))
}

// answer reads {"dashboard": ..., "meta": ...}: the classic API's answer,
// or an import body.
func (d *decoder) answer(o object, c around, depth int) {
	if _, ok := asObject(o["dashboard"]); !ok {
		d.fail(c, errors.New("the answer holds no dashboard"))
		return
	}
	if m := o.obj("meta"); m != nil {
		c.meta = boardMeta{
			Created: parseTime(m.str("created")), Updated: parseTime(m.str("updated")),
			FolderUID: m.str("folderUid"), FolderTitle: m.str("folderTitle"), URL: m.str("url"),
			Version: integer(m["version"]),
		}
	}
	if fu := o.str("folderUid"); fu != "" && c.meta.FolderUID == "" {
		c.meta.FolderUID = fu
	}
	d.value(o["dashboard"], c, depth+1, true)
}

// resource reads a Kubernetes-style Dashboard: its name is the uid, its
// spec the model, in the schema its apiVersion names.
func (d *decoder) resource(o object, c around) {
	md := o.obj("metadata")
	schema := schemaOf(o.str("apiVersion"))
	if c.uid == "" {
		c.uid = md.str("name")
	}
	c.labels = mergeLabels(c.labels, md.strMap("labels"))
	ann := md.strMap("annotations")
	if f := ann["grafana.app/folder"]; f != "" {
		c.meta.FolderUID = f
	} else if f := md.str("folder"); f != "" { // Grizzly
		c.meta.FolderUID = f
	}
	if t := parseTime(md.str("creationTimestamp")); !t.IsZero() {
		c.meta.Created = t
	}
	if t := parseTime(ann["grafana.app/updatedTimestamp"]); !t.IsZero() {
		c.meta.Updated = t
	}
	if v := integer(md["generation"]); v > 0 {
		c.meta.Version = v
	}
	spec, ok := asObject(o["spec"])
	if text := o.str("spec"); !ok && text != "" {
		// Grizzly takes the model as a JSON string too.
		spec, ok = asObject(json.RawMessage(text))
	}
	if !ok {
		d.fail(c, fmt.Errorf("resource %s: spec is not an object", clip(c.uid, 80)))
		return
	}
	if strings.HasPrefix(schema, "v2") || spec.has("elements") {
		d.model(spec, schema, c)
		return
	}
	d.model(spec, schemaOr(schema, "classic"), c)
}

func schemaOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// model reads a classic model or a v2 spec and keeps the board.
func (d *decoder) model(o object, schema string, c around) {
	var b board
	var err error
	if schema == "classic" || !(strings.HasPrefix(schema, "v2") || o.has("elements")) {
		b, err = decodeClassic(o)
	} else {
		b, err = decodeV2(o)
	}
	if err != nil {
		d.fail(c, fmt.Errorf("the dashboard model is not readable: %v", err))
		return
	}
	b.Schema = schema
	b.Where = c.where
	if c.uid != "" {
		b.UID = c.uid
	} else if b.UID == "" {
		b.UID = c.fallbackUID
	}
	b.Labels = c.labels
	b.Meta = c.meta
	d.out.boards = append(d.out.boards, b)
}

// configMap reads the data keys *.json of a ConfigMap, each a model (the
// Grafana sidecar's and kube-prometheus's convention); a key that a
// GrafanaDashboard of the same file reads is that resource's.
func (d *decoder) configMap(o object, c around, depth int) {
	md := o.obj("metadata")
	cm := name(o)
	c = c.at("ConfigMap " + cm)
	c.labels = mergeLabels(c.labels, md.strMap("labels"))
	if f := md.strMap("annotations")["grafana_folder"]; f != "" {
		c.meta.FolderTitle = f
	}
	data := o.obj("data")
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	before := len(d.out.boards) + len(d.out.errs)
	for _, k := range keys {
		if d.taken[[2]string{cm, k}] || !strings.HasSuffix(strings.ToLower(k), ".json") {
			continue
		}
		kc := c.at("key " + k)
		kc.fallbackUID = strings.TrimSuffix(k, path.Ext(k))
		var v json.RawMessage
		if err := json.Unmarshal([]byte(data.str(k)), &v); err != nil {
			d.fail(kc, fmt.Errorf("not JSON: %s", clip(err.Error(), 200)))
			continue
		}
		d.value(v, kc, depth+1, false)
	}
	if len(d.out.boards)+len(d.out.errs) == before && !d.takenFrom(cm) {
		d.skip(c, "no data key *.json holds a dashboard")
	}
}

func (d *decoder) takenFrom(cm string) bool {
	for k := range d.taken {
		if k[0] == cm {
			return true
		}
	}
	return false
}

// operatorDashboard reads a grafana-operator GrafanaDashboard: its model
// in spec.json, spec.gzipJson, or a ConfigMap of the same file
// (spec.configMapRef). One kept elsewhere (spec.url, spec.grafanaCom,
// spec.jsonnet) is not in the file: it is named, not read.
func (d *decoder) operatorDashboard(o object, c around, depth int) {
	md := o.obj("metadata")
	spec := o.obj("spec")
	c = c.at("GrafanaDashboard " + name(o))
	c.uid = spec.str("uid")
	c.fallbackUID = md.str("name")
	c.labels = mergeLabels(c.labels, md.strMap("labels"))
	c.meta.FolderTitle = spec.str("folder")
	if fu := spec.str("folderUID"); fu != "" {
		c.meta.FolderUID = fu
	}
	var text []byte
	switch {
	case spec.str("json") != "":
		text = []byte(spec.str("json"))
	case spec.str("gzipJson") != "":
		var err error
		if text, err = gunzip(spec.str("gzipJson")); err != nil {
			d.fail(c, fmt.Errorf("spec.gzipJson: %v", err))
			return
		}
	case spec.obj("configMapRef") != nil:
		ref := spec.obj("configMapRef")
		cm, ok := d.configMaps[ref.str("name")]
		if !ok || !cm.obj("data").has(ref.str("key")) {
			d.out.elsewhere = append(d.out.elsewhere, fmt.Sprintf("%s (key %s of ConfigMap %s, not in this file)",
				c.where, clip(ref.str("key"), 80), clip(ref.str("name"), 80)))
			return
		}
		text = []byte(cm.obj("data").str(ref.str("key")))
	default:
		for _, k := range []string{"url", "grafanaCom", "jsonnet", "jsonnetLib", "envFrom"} {
			if spec.has(k) {
				d.out.elsewhere = append(d.out.elsewhere, c.where+" (spec."+k+")")
				return
			}
		}
		d.fail(c, errors.New("no dashboard: none of spec.json, spec.gzipJson, spec.configMapRef, spec.url, spec.grafanaCom"))
		return
	}
	var v json.RawMessage
	if err := json.Unmarshal(text, &v); err != nil {
		d.fail(c, fmt.Errorf("the dashboard model is not JSON: %s", clip(err.Error(), 200)))
		return
	}
	d.value(v, c, depth+1, true)
}

// gunzip inflates a base64 gzip text, at most maxGzipBytes.
func gunzip(text string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
	if err != nil {
		return nil, errors.New("not base64")
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, errors.New("not gzip")
	}
	out, err := remote.ReadAll(zr, maxGzipBytes)
	var tooLarge *remote.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("larger than %d MiB inflated", maxGzipBytes>>20)
	case err != nil:
		return nil, errors.New("not gzip: " + clip(err.Error(), 100))
	}
	return out, nil
}

func name(o object) string { return clip(o.obj("metadata").str("name"), 120) }

func mergeLabels(a, b map[string]string) map[string]string {
	if len(b) == 0 {
		return a
	}
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// integer reads a JSON number; 0 when it is not one.
func integer(raw json.RawMessage) int64 {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0
	}
	i, err := n.Int64()
	if err != nil {
		return 0
	}
	return i
}

func jsonType(raw json.RawMessage) string {
	raw = trimJSON(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "null value"
	case raw[0] == '[':
		return "list"
	case raw[0] == '"':
		return "string"
	case raw[0] == 't' || raw[0] == 'f':
		return "boolean"
	default:
		return "number"
	}
}

// keyList names an object's first members, for a note on what it is.
func keyList(o object) string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, clip(k, 40))
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "no members"
	}
	if len(keys) > 4 {
		keys = append(keys[:4], "…")
	}
	return strings.Join(keys, ", ")
}
