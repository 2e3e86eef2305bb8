package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Guard holds a fake to a document: every request is checked before the
// fake sees it (a request that breaks the document is answered 400 and
// goes no further), and every successful answer after.
type Guard struct {
	Doc *Doc

	mu         sync.Mutex
	requests   []string
	violations []string
}

// Call is what the guard found a request calls, handed to the fake.
type Call struct {
	Method *Method
	// Params are the path parameters, unescaped.
	Params map[string]string
	// Body is the request body (already read).
	Body []byte
}

type callKey struct{}

// CallOf is the call a guarded request makes.
func CallOf(r *http.Request) Call {
	c, _ := r.Context().Value(callKey{}).(Call)
	return c
}

// maxBody bounds a request body the guard reads.
const maxBody = 8 << 20

// Wrap returns h behind the guard.
func (g *Guard) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		request := r.Method + " " + r.URL.RequestURI()
		m, params, v := g.Doc.Check(r.Method, r.URL.EscapedPath(), r.URL.Query(), body)
		seen := request
		if m != nil {
			seen = m.ID + ": " + request
		}
		g.note(seen, v, " (request "+request+")")
		if len(v) > 0 {
			WriteError(w, http.StatusBadRequest, "invalid", "the request breaks the API description: "+strings.Join(v, "; "))
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), callKey{}, Call{Method: m, Params: params, Body: body}))
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code/100 == 2 {
			g.note("", g.Doc.CheckAnswer(m, rec.Body.Bytes()), " (answer to "+request+")")
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

func (g *Guard) note(request string, violations []string, suffix string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if request != "" {
		g.requests = append(g.requests, request)
	}
	for _, v := range violations {
		g.violations = append(g.violations, v+suffix)
	}
}

// Requests lists the requests seen, as "method id: METHOD /path?query"
// ("METHOD /path?query" alone for one no method matches).
func (g *Guard) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.requests...)
}

// Violations lists every break of the document seen so far, by a request
// or an answer.
func (g *Guard) Violations() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.violations...)
}

// TakeViolations returns Violations and forgets them.
func (g *Guard) TakeViolations() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	v := g.violations
	g.violations = nil
	return v
}

// WriteError answers as Google's APIs do: {"error": {code, message,
// errors: [{reason, message}], status}}, which the Go clients read into
// googleapi.Error.
func WriteError(w http.ResponseWriter, code int, reason, message string) {
	status := map[int]string{400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
		409: "ALREADY_EXISTS", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}[code]
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": message, "status": status,
		"errors": []map[string]string{{"reason": reason, "message": message, "domain": "global"}},
	}})
}
