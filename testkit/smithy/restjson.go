package smithy

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// restJson1: the operation is the http trait's method and URI template;
// members bound by httpLabel, httpQuery and httpHeader travel in the path,
// the query and the headers (timestamps as date-time, headers' as
// http-date), the others in a JSON body under their jsonName. Errors carry
// their code in X-Amzn-ErrorType.

func (m *Model) checkREST(r *http.Request, body []byte) (Call, error) {
	op, labels := m.route(r.Method, r.URL.EscapedPath())
	if op == nil {
		return Call{}, fmt.Errorf("unknown operation: no operation of the model is %s %s", r.Method, r.URL.EscapedPath())
	}
	in, err := readREST(op, labels, r, body)
	if err != nil {
		return Call{}, fmt.Errorf("%s: %w", op.name, err)
	}
	return Call{Operation: op.name, Input: in}, nil
}

func readREST(op *operation, labels map[string]string, r *http.Request, body []byte) (map[string]any, error) {
	query := r.URL.Query()
	_, literal, _ := strings.Cut(op.uri, "?") // a query the URI itself carries, as in "?tagging"
	fixed, _ := url.ParseQuery(literal)
	for k := range fixed {
		if _, ok := query[k]; !ok {
			return nil, fmt.Errorf("query parameter %s of the URI %s is missing", k, op.uri)
		}
	}
	bodyShape := &shape{name: op.input.name, typ: "structure", members: map[string]*member{}}
	in := map[string]any{}
	for _, mb := range op.input.sortedMembers() {
		var texts []string
		format := mb.timestamp
		switch {
		case !mb.bound:
			bodyShape.members[mb.name] = mb
			continue
		case mb.label:
			texts = []string{labels[mb.name]}
		case mb.query != "":
			texts = query[mb.query]
		case mb.header != "":
			format = cmp.Or(format, "http-date")
			for _, h := range r.Header.Values(mb.header) {
				texts = append(texts, strings.Split(h, ",")...)
			}
		default:
			return nil, fmt.Errorf("member %s has an HTTP binding this kit does not read (httpPayload, httpQueryParams, httpPrefixHeaders)", mb.name)
		}
		v, err := readTexts(mb, format, texts)
		if err != nil {
			return nil, err
		}
		if v != nil {
			in[mb.name] = v
		}
	}
	for _, k := range sortedKeys(query) {
		if _, ok := fixed[k]; !ok && op.input.queryParameter(k) == nil {
			return nil, fmt.Errorf("unknown query parameter %q", k)
		}
	}
	if len(bodyShape.members) == 0 {
		if b := bytes.TrimSpace(body); len(b) > 0 && string(b) != "{}" {
			return nil, fmt.Errorf("a body is sent, but the operation takes none")
		}
	} else {
		got, err := readJSON(bodyShape, body, true)
		if err != nil {
			return nil, err
		}
		for k, v := range got {
			in[k] = v
		}
	}
	return in, missingRequired(op.input, in, "")
}

// readTexts reads a member sent as text: one value, or a list's values.
func readTexts(mb *member, format string, texts []string) (any, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if mb.shape.typ != "list" && mb.shape.typ != "set" {
		if len(texts) > 1 {
			return nil, fmt.Errorf("%s: sent %d times, but it is not a list", mb.name, len(texts))
		}
		return fromText(mb.shape, format, strings.TrimSpace(texts[0]), mb.name)
	}
	var out []any
	for i, t := range texts {
		v, err := fromText(mb.shape.item.shape, cmp.Or(mb.shape.item.timestamp, format), strings.TrimSpace(t), fmt.Sprintf("%s[%d]", mb.name, i))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *shape) queryParameter(name string) *member {
	for _, m := range s.members {
		if m.query == name {
			return m
		}
	}
	return nil
}

// route finds the operation whose method and URI template match, and the
// labels' values. Where two templates match, the one with more literal
// segments wins, as in the Smithy specification.
func (m *Model) route(method, path string) (*operation, map[string]string) {
	var best *operation
	var bestLabels map[string]string
	bestLiterals := -1
	for _, op := range m.ops {
		if op.method != method {
			continue
		}
		pattern, _, _ := strings.Cut(op.uri, "?")
		if labels, literals, ok := matchPath(pattern, path); ok && literals > bestLiterals {
			best, bestLabels, bestLiterals = op, labels, literals
		}
	}
	return best, bestLabels
}

func matchPath(pattern, path string) (map[string]string, int, bool) {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	labels := map[string]string{}
	literals := 0
	for i, p := range ps {
		if i >= len(xs) {
			return nil, 0, false
		}
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "+}") { // greedy: the rest of the path
			rest, err := url.PathUnescape(strings.Join(xs[i:], "/"))
			if err != nil || rest == "" {
				return nil, 0, false
			}
			labels[p[1:len(p)-2]] = rest
			return labels, literals, true
		}
		seg, err := url.PathUnescape(xs[i])
		switch {
		case err != nil:
			return nil, 0, false
		case strings.HasPrefix(p, "{"):
			if seg == "" {
				return nil, 0, false
			}
			labels[p[1:len(p)-1]] = seg
		case p != seg:
			return nil, 0, false
		default:
			literals++
		}
	}
	return labels, literals, len(xs) == len(ps)
}

// writeREST answers an operation's output (already checked): bound members
// in headers, the rest as the JSON body.
func (m *Model) writeREST(w http.ResponseWriter, op *operation, out map[string]any) {
	status := cmp.Or(op.code, http.StatusOK)
	body := map[string]any{}
	for _, mb := range op.output.sortedMembers() {
		v, ok := out[mb.name]
		switch {
		case !ok:
		case mb.responseCode:
			status = int(v.(int64))
		case mb.header != "":
			w.Header().Set(mb.header, headerText(mb, v))
		default:
			body[mb.name] = v
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if status != http.StatusNoContent {
		b, _ := json.Marshal(toJSON(op.output, "", body, true))
		w.Write(b)
	}
}

func headerText(mb *member, v any) string {
	switch x := v.(type) {
	case time.Time:
		return formatTime(x, cmp.Or(mb.timestamp, "http-date"))
	case []any:
		parts := make([]string, len(x))
		for i, v := range x {
			parts[i] = headerText(mb.shape.item, v)
		}
		return strings.Join(parts, ", ")
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}

// writeRESTError answers an error as restJson1 does.
func writeRESTError(w http.ResponseWriter, status int, code, message string, s *shape) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{messageMember(s): message})
	w.Write(b)
}
