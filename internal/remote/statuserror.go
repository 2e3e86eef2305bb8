package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/internal/redact"
)

// StatusError is an HTTP answer that was not a success. It never holds the
// response body: a proxy that echoes request headers would put the
// Authorization header into every report and log. It keeps the API's own
// error code and message instead, when the body is JSON in a known shape.
type StatusError struct {
	Method, URL string
	Status      int
	// Summary is the API's error code and message ("PERMISSION_DENIED:
	// caller lacks bigquery.tables.list"), at most SummaryLimit characters;
	// empty when the body was not a recognised JSON error.
	Summary string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.URL, e.Status)
	if e.Summary != "" {
		msg += ": " + e.Summary
	}
	return redact.String(msg)
}

// NewStatusError builds the error for a non-2xx answer, reading (a bounded
// part of) the body to summarise it, and closes the body.
func NewStatusError(req *http.Request, resp *http.Response) *StatusError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	return &StatusError{Method: req.Method, URL: redact.URLOf(req.URL), Status: resp.StatusCode, Summary: SummarizeErrorBody(body)}
}

// maxErrorBody is how much of an error answer is read to find its code and
// message; a longer body is not a JSON error worth parsing.
const maxErrorBody = 64 << 10

// SummaryLimit caps a summary's length in characters.
const SummaryLimit = 200

// SummarizeErrorBody returns the error code and message of an API's error
// answer, or "" when body is not JSON in one of the shapes APIs use:
//
//	{"error":{"code":403,"message":"..","status":"PERMISSION_DENIED"}}  Google APIs
//	{"error":"invalid_grant","error_description":".."}                  OAuth, Slack
//	{"error":"Object Not Found","reason":".."}                          RabbitMQ
//	{"title":"..","detail":"..","status":404}                          problem+json (Airflow)
//	{"message":"..","reason":"Forbidden"}                              GitHub, Kubernetes
//
// Only those fields are kept: never the rest of the body, never HTML. The
// result is single-line, masked for registered secrets and credentials
// that look like header values, and at most SummaryLimit characters.
// Collectors that build their own error text from an answer use it too.
func SummarizeErrorBody(body []byte) string {
	body = bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	if len(body) == 0 || body[0] != '{' {
		return ""
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil {
		return ""
	}
	var parts []string
	add := func(v string) {
		v = redact.OneLine(v)
		if v == "" {
			return
		}
		for _, p := range parts {
			if strings.EqualFold(p, v) {
				return
			}
		}
		parts = append(parts, v)
	}
	if inner := object(doc["error"]); inner != nil {
		// Google: status is the code name, code the HTTP status (already
		// in the message), message the text.
		add(scalar(inner["status"]))
		add(code(inner["code"]))
		add(scalar(inner["message"]))
	} else {
		add(scalar(doc["error"]))
		add(scalar(doc["reason"]))
		add(code(doc["code"]))
		add(scalar(doc["title"]))
		add(scalar(doc["error_description"]))
		add(scalar(doc["detail"]))
		add(scalar(doc["message"]))
	}
	return redact.Line(strings.Join(parts, ": "), SummaryLimit)
}

// object decodes a JSON object, or returns nil.
func object(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// scalar returns a JSON string or number as text; "" for anything else.
func scalar(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// code returns an error code that is a name; a number only repeats the
// HTTP status.
func code(raw json.RawMessage) string {
	s := scalar(raw)
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return ""
	}
	return s
}

// IsStatus reports whether err is, or wraps, an answer with that HTTP
// status.
func IsStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == code
}
