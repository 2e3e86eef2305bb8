// Package discovery checks HTTP requests and JSON answers against a Google
// API discovery document (https://developers.google.com/discovery/v1/reference),
// the description Google publishes of each of its REST APIs and generates
// its clients from: the contract test of a fake built from it (see
// testkit/bqfake). It is testkit/swagger's sibling for Google's format.
//
// A request is held to one method of the document:
//   - its HTTP method and path: the method's `path` template under
//     `servicePath`, each path parameter matching its `pattern`;
//   - its query: every parameter declared by the method or among the
//     document's global `parameters` (alt, fields, prettyPrint...), of its
//     type and enum, sent once unless `repeated`; every required one sent;
//   - its body: none unless the method takes a `request`, and then JSON
//     whose every field exists in that schema (through `$ref`,
//     `properties`, `items` and `additionalProperties`), of its type,
//     and none of them `readOnly` (output only: the server sets them).
//
// Answers are held to the method's `response` schema the same way, read-
// only fields allowed: a fake cannot invent a field either.
package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Doc is a loaded discovery document.
type Doc struct {
	// ServicePath is where the methods' paths start, e.g. /bigquery/v2/.
	ServicePath string
	methods     []*Method
	global      map[string]*Param
	schemas     map[string]*Schema
}

// Method is one method of the document, e.g. bigquery.tables.get.
type Method struct {
	ID         string            `json:"id"`
	HTTPMethod string            `json:"httpMethod"`
	Path       string            `json:"path"`
	Params     map[string]*Param `json:"parameters"`
	Request    *Schema           `json:"request"`
	Response   *Schema           `json:"response"`

	path  *regexp.Regexp // Path as a pattern, one group per parameter
	names []string       // the parameters, in the order of the groups
}

// Param is a path or query parameter.
type Param struct {
	Location string   `json:"location"` // path or query
	Type     string   `json:"type"`
	Format   string   `json:"format"`
	Pattern  string   `json:"pattern"`
	Enum     []string `json:"enum"`
	Required bool     `json:"required"`
	Repeated bool     `json:"repeated"`
}

// Schema is a JSON schema of the document: a reference to a named one, or
// a type with its properties, items or additional properties.
type Schema struct {
	Ref                  string             `json:"$ref"`
	ID                   string             `json:"id"`
	Type                 string             `json:"type"`
	Format               string             `json:"format"`
	Enum                 []string           `json:"enum"`
	ReadOnly             bool               `json:"readOnly"`
	Properties           map[string]*Schema `json:"properties"`
	Items                *Schema            `json:"items"`
	AdditionalProperties *Schema            `json:"additionalProperties"`
}

// resource is a node of the document's resource tree.
type resource struct {
	Methods   map[string]*Method   `json:"methods"`
	Resources map[string]*resource `json:"resources"`
}

// Load reads a discovery document.
func Load(b []byte) (*Doc, error) {
	var raw struct {
		ServicePath string               `json:"servicePath"`
		Parameters  map[string]*Param    `json:"parameters"`
		Schemas     map[string]*Schema   `json:"schemas"`
		Resources   map[string]*resource `json:"resources"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("discovery document: %w", err)
	}
	// An API at the host's root (IAM, Resource Manager) has an empty
	// servicePath: its methods' paths start at "/".
	sp := "/"
	if p := strings.Trim(raw.ServicePath, "/"); p != "" {
		sp += p + "/"
	}
	d := &Doc{ServicePath: sp, global: raw.Parameters, schemas: raw.Schemas}
	var walk func(map[string]*resource) error
	walk = func(rs map[string]*resource) error {
		for _, name := range slices.Sorted(maps.Keys(rs)) {
			r := rs[name]
			for _, mname := range slices.Sorted(maps.Keys(r.Methods)) {
				m := r.Methods[mname]
				if err := m.compile(); err != nil {
					return fmt.Errorf("discovery document: method %s: %w", m.ID, err)
				}
				d.methods = append(d.methods, m)
			}
			if err := walk(r.Resources); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(raw.Resources); err != nil {
		return nil, err
	}
	if len(d.methods) == 0 {
		return nil, fmt.Errorf("discovery document: no methods")
	}
	return d, nil
}

// template is a parameter in a path template: {name}, or {+name} whose
// value may hold reserved characters, slashes included.
var template = regexp.MustCompile(`\{(\+?)([^}]+)\}`)

// compile turns the method's path template into a pattern.
func (m *Method) compile() error {
	var re strings.Builder
	re.WriteString("^")
	last := 0
	for _, loc := range template.FindAllStringSubmatchIndex(m.Path, -1) {
		re.WriteString(regexp.QuoteMeta(m.Path[last:loc[0]]))
		if loc[3] > loc[2] {
			re.WriteString("(.+)")
		} else {
			re.WriteString("([^/]+)")
		}
		m.names = append(m.names, m.Path[loc[4]:loc[5]])
		last = loc[1]
	}
	re.WriteString(regexp.QuoteMeta(m.Path[last:]) + "$")
	var err error
	m.path, err = regexp.Compile(re.String())
	return err
}

// Find is the method a request calls: its HTTP method and escaped path.
// The path parameters come back unescaped. When no method matches, err
// says whether the path is unknown or only the HTTP method.
func (d *Doc) Find(httpMethod, escapedPath string) (*Method, map[string]string, error) {
	rest, ok := strings.CutPrefix(escapedPath, d.ServicePath)
	if !ok {
		return nil, nil, fmt.Errorf("%s %s: not under the service path %s", httpMethod, escapedPath, d.ServicePath)
	}
	var allowed []string
	for _, m := range d.methods {
		params, ok := m.match(rest)
		if !ok {
			continue
		}
		if m.HTTPMethod == httpMethod {
			return m, params, nil
		}
		allowed = append(allowed, m.HTTPMethod+" ("+m.ID+")")
	}
	if len(allowed) > 0 {
		return nil, nil, fmt.Errorf("%s %s: the path allows only %s", httpMethod, escapedPath, strings.Join(allowed, ", "))
	}
	return nil, nil, fmt.Errorf("%s %s: no method of the document has this path", httpMethod, escapedPath)
}

// match reads the path parameters from a path under the service path,
// each of which must keep its pattern.
func (m *Method) match(rest string) (map[string]string, bool) {
	groups := m.path.FindStringSubmatch(rest)
	if groups == nil {
		return nil, false
	}
	params := map[string]string{}
	for i, name := range m.names {
		v, err := url.PathUnescape(groups[i+1])
		if err != nil || v == "" {
			return nil, false
		}
		if p := m.Params[name]; p != nil && p.Pattern != "" {
			if ok, _ := regexp.MatchString(p.Pattern, v); !ok {
				return nil, false
			}
		}
		params[name] = v
	}
	return params, true
}

// Check finds the method a request calls, with its path parameters, and
// returns every way the request breaks the document, each naming the
// method, or the request when no method matches.
func (d *Doc) Check(httpMethod, escapedPath string, query url.Values, body []byte) (*Method, map[string]string, []string) {
	m, params, err := d.Find(httpMethod, escapedPath)
	if err != nil {
		return nil, nil, []string{err.Error()}
	}
	var out []string
	bad := func(format string, args ...any) { out = append(out, m.ID+": "+fmt.Sprintf(format, args...)) }
	for _, k := range slices.Sorted(maps.Keys(query)) {
		p := m.Params[k]
		if p == nil || p.Location != "query" {
			p = d.global[k]
		}
		if p == nil {
			bad("query parameter %q is not one the method declares", k)
			continue
		}
		if len(query[k]) > 1 && !p.Repeated {
			bad("query parameter %s is sent %d times, but it is not repeated", k, len(query[k]))
		}
		for _, v := range query[k] {
			if why := p.check(v); why != "" {
				bad("query parameter %s=%q: %s", k, v, why)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Params)) {
		if p := m.Params[k]; p.Location == "query" && p.Required && !query.Has(k) {
			bad("required query parameter %s is missing", k)
		}
	}
	switch {
	case m.Request == nil && len(bytes.TrimSpace(body)) > 0:
		bad("a body is sent, but the method takes none")
	case m.Request != nil:
		out = append(out, d.checkJSON(m.ID+": request body", m.Request, body, true)...)
	}
	return m, params, out
}

// CheckAnswer checks a successful answer's body against the method's
// response schema.
func (d *Doc) CheckAnswer(m *Method, body []byte) []string {
	if m.Response == nil {
		if len(bytes.TrimSpace(body)) > 0 {
			return []string{m.ID + ": an answer body is sent, but the method has none"}
		}
		return nil
	}
	return d.checkJSON(m.ID+": answer", m.Response, body, false)
}

// CheckValue checks a decoded JSON value against a named schema (e.g.
// "Table"); request says whether read-only fields are refused.
func (d *Doc) CheckValue(schema string, v any, request bool) []string {
	return d.value(schema, &Schema{Ref: schema}, v, request)
}

func (d *Doc) checkJSON(where string, s *Schema, body []byte, request bool) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{where + ": not JSON: " + err.Error()}
	}
	return d.value(where, s, v, request)
}

// value checks v against s; at is where v sits (the schema's name, then
// a JSON pointer).
func (d *Doc) value(at string, s *Schema, v any, request bool) []string {
	if s.Ref != "" {
		named := d.schemas[s.Ref]
		if named == nil {
			return []string{at + ": the document has no schema " + s.Ref}
		}
		s = named
	}
	if v == nil { // JSON null: a field cleared or left unset
		return nil
	}
	wrong := func() []string { return []string{fmt.Sprintf("%s: %s, want %s", at, jsonType(v), s.Type)} }
	switch s.Type {
	case "any":
		return nil
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return wrong()
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			p := s.Properties[k]
			switch {
			case p != nil && request && p.ReadOnly:
				out = append(out, fmt.Sprintf("%s/%s: field %q of %s is output only", at, k, k, or(s.ID, "the object")))
			case p != nil:
				out = append(out, d.value(at+"/"+k, p, obj[k], request)...)
			case s.AdditionalProperties != nil:
				out = append(out, d.value(at+"/"+k, s.AdditionalProperties, obj[k], request)...)
			default:
				out = append(out, fmt.Sprintf("%s/%s: field %q is not in %s", at, k, k, or(s.ID, "the object's schema")))
			}
		}
		return out
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return wrong()
		}
		var out []string
		for i, e := range arr {
			out = append(out, d.value(fmt.Sprintf("%s/%d", at, i), s.Items, e, request)...)
		}
		return out
	case "boolean":
		if _, ok := v.(bool); !ok {
			return wrong()
		}
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			// Google's JSON writes a double that is not finite as a string.
			if str, isStr := v.(string); isStr && s.Type == "number" && slices.Contains([]string{"NaN", "Infinity", "-Infinity"}, str) {
				return nil
			}
			return wrong()
		}
		if s.Type == "integer" {
			if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
				return []string{fmt.Sprintf("%s: %s is not an integer", at, n)}
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return wrong()
		}
		if why := checkString(str, s.Format, s.Enum); why != "" {
			return []string{fmt.Sprintf("%s: %q: %s", at, str, why)}
		}
	default:
		return []string{fmt.Sprintf("%s: the document's type %q is not known here", at, s.Type)}
	}
	return nil
}

// check reads a query parameter's value as its type says.
func (p *Param) check(v string) string {
	switch p.Type {
	case "boolean":
		if v != "true" && v != "false" {
			return "not a boolean"
		}
	case "integer":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return "not an integer"
		}
		if strings.HasPrefix(p.Format, "uint") && strings.HasPrefix(v, "-") {
			return "negative, but the parameter is " + p.Format
		}
	case "number":
		if f, err := strconv.ParseFloat(v, 64); err != nil || math.IsNaN(f) {
			return "not a number"
		}
	default:
		return checkString(v, p.Format, p.Enum)
	}
	return ""
}

// checkString checks a string against its format (64-bit integers are
// strings in Google's JSON) and enum.
func checkString(v, format string, enum []string) string {
	switch format {
	case "int64":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return "not an int64"
		}
	case "uint64":
		if _, err := strconv.ParseUint(v, 10, 64); err != nil {
			return "not a uint64"
		}
	}
	if len(enum) > 0 && !slices.Contains(enum, v) {
		return "not one of " + strings.Join(enum, ", ")
	}
	return ""
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}
