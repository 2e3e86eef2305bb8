// Package swagger checks HTTP requests against a service's published API
// description, Swagger 2.0 (OpenAPI 2) or OpenAPI 3: the contract test of a
// collector whose fake server is built from that description.
//
// kin-openapi does the checking: openapi2conv turns a Swagger 2.0
// description into OpenAPI 3, a gorillamux router finds the operation
// (path under the base path, method), and openapi3filter checks its path
// and query parameters (types, enums, formats) and its JSON body against
// the schemas. This package adds only what kin-openapi leaves alone and a
// contract test needs:
//   - a $ref the description's extract does not carry accepts any value
//     (kin-openapi refuses to load a description with one);
//   - a query parameter the operation does not declare is refused, and so
//     is a body sent to an operation that takes none (kin-openapi passes
//     both: a server may ignore them, a contract test may not);
//   - a query parameter sent more than once where the description reads
//     one value is refused (kin-openapi reads the first and drops the rest);
//   - a query parameter may be sent empty (kin-openapi refuses it unless
//     the description declares allowEmptyValue, which Grafana's never
//     does though its server takes them and its prose asks for one).
package swagger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Spec is a loaded description.
type Spec struct {
	doc    *openapi3.T
	router routers.Router
}

// Load reads a description from a file: Swagger 2.0 or OpenAPI 3.
func Load(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if b, err = fillMissingRefs(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	loader := openapi3.NewLoader()
	var doc *openapi3.T
	if bytes.Contains(b, []byte(`"swagger"`)) {
		var doc2 openapi2.T
		if err := json.Unmarshal(b, &doc2); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		doc, err = openapi2conv.ToV3WithLoader(&doc2, loader, nil)
	} else {
		doc, err = loader.LoadFromData(b)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if doc.Paths.Len() == 0 {
		return nil, fmt.Errorf("%s: no paths", path)
	}
	allowEmptyQueryValues(doc)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Spec{doc: doc, router: router}, nil
}

// allowEmptyQueryValues lets a query parameter be sent empty, which
// kin-openapi refuses unless allowEmptyValue is declared. Grafana's
// description declares it nowhere, yet says in prose that an empty
// folderUIDs searches the top level, and its server takes empty values.
func allowEmptyQueryValues(doc *openapi3.T) {
	for _, item := range doc.Paths.Map() {
		params := item.Parameters
		for _, op := range item.Operations() {
			params = append(params, op.Parameters...)
		}
		for _, p := range params {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				p.Value.AllowEmptyValue = true
			}
		}
	}
}

// localRef is a reference inside the description: its path after "#/".
var localRef = regexp.MustCompile(`"\$ref"\s*:\s*"#/([^"]+)"`)

// fillMissingRefs gives every local $ref the description does not carry
// an empty target: a schema that accepts any value, a response with no
// shape. Extracts keep the operations a test needs and leave the rest.
func fillMissingRefs(b []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	for _, ref := range localRef.FindAllSubmatch(b, -1) {
		parts := strings.Split(string(ref[1]), "/")
		m := doc
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		if _, ok := m[parts[len(parts)-1]]; !ok {
			m[parts[len(parts)-1]] = map[string]any{"description": "not in the extract"}
		}
	}
	return json.Marshal(doc)
}

// Check returns every way a request breaks the description; none when it
// keeps it. path is the URL's escaped path, body the request body.
func (s *Spec) Check(method, path string, query url.Values, body []byte) []string {
	req, err := http.NewRequest(method, "http://fake"+path, bytes.NewReader(body))
	if err != nil {
		return []string{fmt.Sprintf("%s %s: %v", method, path, err)}
	}
	req.URL.RawQuery = query.Encode()
	if len(bytes.TrimSpace(body)) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	route, pathParams, err := s.router.FindRoute(req)
	switch {
	case errors.Is(err, routers.ErrMethodNotAllowed):
		return []string{fmt.Sprintf("%s %s: the path does not allow %s", method, path, method)}
	case err != nil:
		return []string{fmt.Sprintf("%s %s: no path of the description matches", method, path)}
	}
	where := method + " " + route.Path
	var out []string
	bad := func(format string, args ...any) { out = append(out, where+": "+fmt.Sprintf(format, args...)) }
	declared := map[string]*openapi3.Parameter{}
	for _, p := range append(route.PathItem.Parameters, route.Operation.Parameters...) {
		if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
			declared[p.Value.Name] = p.Value
		}
	}
	for _, k := range slices.Sorted(maps.Keys(query)) {
		p, ok := declared[k]
		switch {
		case !ok:
			bad("query parameter %q is not declared for this operation", k)
		case len(query[k]) > 1 && !(p.Schema != nil && p.Schema.Value.Type.Is(openapi3.TypeArray) && p.Explode != nil && *p.Explode):
			bad("query parameter %s is repeated, but the description reads it once (its collectionFormat is not multi)", k)
		}
	}
	if route.Operation.RequestBody == nil && len(bytes.TrimSpace(body)) > 0 {
		bad("a body is sent but the operation takes none")
	}
	err = openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	})
	for _, e := range flatten(err) {
		bad("%s", e)
	}
	return out
}

// flatten lists the errors kin-openapi gathered, one line each: where
// (the parameter, the body, the JSON pointer in it) and why, without the
// schema and value kin-openapi appends.
func flatten(err error) []string {
	switch e := err.(type) {
	case nil:
		return nil
	case openapi3.MultiError:
		var out []string
		for _, err := range e {
			out = append(out, flatten(err)...)
		}
		return out
	case *openapi3filter.RequestError:
		prefix := ""
		switch {
		case e.Parameter != nil:
			prefix = fmt.Sprintf("%s parameter %s: ", e.Parameter.In, e.Parameter.Name)
		case e.RequestBody != nil:
			prefix = "body: "
		}
		if e.Err == nil {
			return []string{prefix + e.Reason}
		}
		out := flatten(e.Err)
		for i := range out {
			out[i] = prefix + out[i]
		}
		return out
	case *openapi3.SchemaError:
		if at := e.JSONPointer(); len(at) > 0 {
			return []string{"/" + strings.Join(at, "/") + ": " + e.Reason}
		}
		return []string{e.Reason}
	}
	return []string{strings.ReplaceAll(err.Error(), "\n", " ")}
}

// ValidateValue checks a decoded JSON value (an answer the fake serves)
// against a definition (a schema of the components, in OpenAPI 3).
func (s *Spec) ValidateValue(definition string, v any) []string {
	sc := s.doc.Components.Schemas[definition]
	if sc == nil || sc.Value == nil {
		return []string{definition + ": no such definition"}
	}
	out := flatten(sc.Value.VisitJSON(v, openapi3.MultiErrors()))
	for i := range out {
		out[i] = definition + ": " + out[i]
	}
	return out
}

// Recorder checks every request a handler receives against the
// description, before the handler answers it.
type Recorder struct {
	Spec *Spec
	// Prefix is a path prefix the description does not carry (GitHub
	// Enterprise's /api/v3 before api.github.com's paths): the check sees
	// the path without it, the wrapped handler the request as it came.
	Prefix string

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
		path := strings.TrimPrefix(req.URL.EscapedPath(), r.Prefix)
		v := r.Spec.Check(req.Method, path, req.URL.Query(), body)
		seen := req.Method + " " + path
		if req.URL.RawQuery != "" {
			seen += "?" + req.URL.RawQuery
		}
		r.mu.Lock()
		r.requests = append(r.requests, seen)
		r.violations = append(r.violations, v...)
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	})
}

// Requests lists the requests seen, as "METHOD /path?query" (the path
// without Prefix).
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
