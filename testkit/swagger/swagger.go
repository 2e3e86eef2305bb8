// Package swagger checks HTTP requests against a Swagger 2.0 (OpenAPI 2)
// description: the contract test of a collector whose fake server is built
// from the service's published API description. It knows what such a test
// needs: path templates, methods, path and query parameters with their
// types, enums and collection formats, and JSON bodies against the
// definitions (types, required properties, enums, string lengths and
// patterns). A $ref the description does not carry accepts any value.
package swagger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Spec is a loaded description.
type Spec struct {
	BasePath    string                          `json:"basePath"`
	Paths       map[string]map[string]Operation `json:"paths"`
	Definitions map[string]*Schema              `json:"definitions"`
}

// Operation is one method of one path.
type Operation struct {
	OperationID string  `json:"operationId"`
	Parameters  []Param `json:"parameters"`
}

// Param is one declared parameter.
type Param struct {
	Name             string  `json:"name"`
	In               string  `json:"in"`
	Type             string  `json:"type"`
	Format           string  `json:"format"`
	Required         bool    `json:"required"`
	Enum             []any   `json:"enum"`
	CollectionFormat string  `json:"collectionFormat"`
	Items            *Schema `json:"items"`
	Schema           *Schema `json:"schema"`
}

// Schema is the part of a JSON schema the checks read.
type Schema struct {
	Ref        string             `json:"$ref"`
	Type       string             `json:"type"`
	Format     string             `json:"format"`
	Required   []string           `json:"required"`
	Properties map[string]*Schema `json:"properties"`
	Items      *Schema            `json:"items"`
	Enum       []any              `json:"enum"`
	MinLength  *int               `json:"minLength"`
	MaxLength  *int               `json:"maxLength"`
	Pattern    string             `json:"pattern"`
}

// Load reads a description from a file.
func Load(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.Paths) == 0 {
		return nil, fmt.Errorf("%s: no paths", path)
	}
	return &s, nil
}

// Match finds the path template a request path (under basePath) falls
// under; literal segments win over parameters, so /a/export is not /a/{id}.
// params are the path parameters' values, unescaped.
func (s *Spec) Match(path string) (template string, params map[string]string, ok bool) {
	rest, found := strings.CutPrefix(path, s.BasePath)
	if !found || (rest != "" && !strings.HasPrefix(rest, "/")) {
		return "", nil, false
	}
	segs := strings.Split(rest, "/")
	best := -1
	for tmpl := range s.Paths {
		tsegs := strings.Split(tmpl, "/")
		if len(tsegs) != len(segs) {
			continue
		}
		lits, p, fits := 0, map[string]string{}, true
		for i, ts := range tsegs {
			if strings.HasPrefix(ts, "{") && strings.HasSuffix(ts, "}") {
				v, err := url.PathUnescape(segs[i])
				if err != nil || v == "" {
					fits = false
					break
				}
				p[ts[1:len(ts)-1]] = v
				continue
			}
			if ts != segs[i] {
				fits = false
				break
			}
			lits++
		}
		if fits && (lits > best || (lits == best && tmpl < template)) {
			best, template, params = lits, tmpl, p
		}
	}
	return template, params, best >= 0
}

// Check returns every way a request breaks the description; none when it
// keeps it. path is the URL's escaped path, body the request body.
func (s *Spec) Check(method, path string, query url.Values, body []byte) []string {
	tmpl, pathParams, ok := s.Match(path)
	if !ok {
		return []string{fmt.Sprintf("%s %s: no path of the description matches", method, path)}
	}
	op, ok := s.Paths[tmpl][strings.ToLower(method)]
	if !ok {
		return []string{fmt.Sprintf("%s %s: %s does not allow %s", method, path, tmpl, method)}
	}
	where := method + " " + tmpl
	var out []string
	bad := func(format string, args ...any) { out = append(out, where+": "+fmt.Sprintf(format, args...)) }
	declared := map[string]Param{}
	var bodyParam *Param
	for i, p := range op.Parameters {
		switch p.In {
		case "query":
			declared[p.Name] = p
		case "path":
			if v, ok := pathParams[p.Name]; ok {
				if err := checkValue(p.Type, p.Format, p.Enum, v); err != nil {
					bad("path parameter %s: %v", p.Name, err)
				}
			}
		case "body":
			bodyParam = &op.Parameters[i]
		}
	}
	keys := make([]string, 0, len(query))
	for k := range query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := declared[k]
		if !ok {
			bad("query parameter %q is not declared for this operation", k)
			continue
		}
		vals := query[k]
		if p.Type == "array" {
			if p.CollectionFormat != "multi" && len(vals) > 1 {
				bad("query parameter %s is repeated but its collectionFormat is %s, not multi", k, orCSV(p.CollectionFormat))
			}
			var items []string
			for _, v := range vals {
				if p.CollectionFormat == "multi" {
					items = append(items, v)
				} else {
					items = append(items, strings.Split(v, sep(p.CollectionFormat))...)
				}
			}
			for _, it := range items {
				if p.Items != nil {
					if err := checkValue(p.Items.Type, p.Items.Format, p.Items.Enum, it); err != nil {
						bad("query parameter %s: item %v", k, err)
					}
				}
			}
			continue
		}
		if len(vals) > 1 {
			bad("query parameter %s is repeated but is not an array", k)
		}
		for _, v := range vals {
			if err := checkValue(p.Type, p.Format, p.Enum, v); err != nil {
				bad("query parameter %s: %v", k, err)
			}
		}
	}
	for name, p := range declared {
		if p.Required && len(query[name]) == 0 {
			bad("required query parameter %s is missing", name)
		}
	}
	switch {
	case bodyParam == nil && len(bytes.TrimSpace(body)) > 0:
		bad("a body is sent but the operation takes none")
	case bodyParam != nil && len(bytes.TrimSpace(body)) == 0:
		if bodyParam.Required {
			bad("the required body is missing")
		}
	case bodyParam != nil:
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			bad("the body is not JSON: %v", err)
		} else {
			for _, e := range s.validate(bodyParam.Schema, v, "body", 0) {
				bad("%s", e)
			}
		}
	}
	return out
}

func orCSV(f string) string {
	if f == "" {
		return "csv (the default)"
	}
	return f
}

func sep(format string) string {
	switch format {
	case "ssv":
		return " "
	case "tsv":
		return "\t"
	case "pipes":
		return "|"
	}
	return ","
}

// checkValue checks one query or path value (text) against a simple type.
func checkValue(typ, format string, enum []any, v string) error {
	switch typ {
	case "integer":
		bits := 64
		if format == "int32" {
			bits = 32
		}
		if _, err := strconv.ParseInt(v, 10, bits); err != nil {
			return fmt.Errorf("%q is not an integer (%s)", v, format)
		}
	case "number":
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return fmt.Errorf("%q is not a number", v)
		}
	case "boolean":
		if v != "true" && v != "false" {
			return fmt.Errorf("%q is not a boolean", v)
		}
	}
	if len(enum) > 0 {
		for _, e := range enum {
			if fmt.Sprint(e) == v {
				return nil
			}
		}
		return fmt.Errorf("%q is not one of %v", v, enum)
	}
	return nil
}

// validate checks a decoded JSON value against a schema.
func (s *Spec) validate(sc *Schema, v any, at string, depth int) []string {
	if sc == nil || depth > 64 {
		return nil
	}
	if sc.Ref != "" {
		name, ok := strings.CutPrefix(sc.Ref, "#/definitions/")
		def := s.Definitions[name]
		if !ok || def == nil {
			return nil // not carried by the description: any value
		}
		return s.validate(def, v, at, depth+1)
	}
	var out []string
	switch sc.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %s", at, kind(v))}
		}
		for _, r := range sc.Required {
			if _, ok := m[r]; !ok {
				out = append(out, fmt.Sprintf("%s: required property %s is missing", at, r))
			}
		}
		for k, pv := range m {
			if ps := sc.Properties[k]; ps != nil {
				out = append(out, s.validate(ps, pv, at+"."+k, depth+1)...)
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an array, got %s", at, kind(v))}
		}
		for i, e := range a {
			out = append(out, s.validate(sc.Items, e, fmt.Sprintf("%s[%d]", at, i), depth+1)...)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: want a string, got %s", at, kind(v))}
		}
		n := len([]rune(str))
		if sc.MinLength != nil && n < *sc.MinLength {
			out = append(out, fmt.Sprintf("%s: shorter than %d", at, *sc.MinLength))
		}
		if sc.MaxLength != nil && n > *sc.MaxLength {
			out = append(out, fmt.Sprintf("%s: longer than %d", at, *sc.MaxLength))
		}
		if sc.Pattern != "" {
			if re, err := regexp.Compile(sc.Pattern); err == nil && !re.MatchString(str) {
				out = append(out, fmt.Sprintf("%s: %q does not match %s", at, str, sc.Pattern))
			}
		}
	case "integer", "number":
		f, ok := v.(float64)
		if !ok {
			return []string{fmt.Sprintf("%s: want a %s, got %s", at, sc.Type, kind(v))}
		}
		if sc.Type == "integer" && f != float64(int64(f)) {
			out = append(out, fmt.Sprintf("%s: %v is not an integer", at, f))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return []string{fmt.Sprintf("%s: want a boolean, got %s", at, kind(v))}
		}
	}
	if len(sc.Enum) > 0 {
		found := false
		for _, e := range sc.Enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				found = true
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("%s: %v is not one of %v", at, v, sc.Enum))
		}
	}
	return out
}

// ValidateValue checks a decoded JSON value (an answer the fake serves)
// against a definition.
func (s *Spec) ValidateValue(definition string, v any) []string {
	return s.validate(&Schema{Ref: "#/definitions/" + definition}, v, definition, 0)
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// Recorder checks every request a handler receives against the
// description, before the handler answers it.
type Recorder struct {
	Spec *Spec

	mu         sync.Mutex
	requests   []string
	violations []string
}

// Wrap returns h behind the check.
func (r *Recorder) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body []byte
		if req.Body != nil {
			body, _ = io.ReadAll(io.LimitReader(req.Body, 1<<20))
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		v := r.Spec.Check(req.Method, req.URL.EscapedPath(), req.URL.Query(), body)
		r.mu.Lock()
		r.requests = append(r.requests, req.Method+" "+req.URL.RequestURI())
		r.violations = append(r.violations, v...)
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	})
}

// Requests lists the requests seen, as "METHOD /path?query".
func (r *Recorder) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}

// Violations lists every break of the description seen so far.
func (r *Recorder) Violations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.violations...)
}
