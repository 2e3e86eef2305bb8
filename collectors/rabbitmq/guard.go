package rabbitmq

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/bfaudit/bfaudit/internal/redact"
)

// maxMessage caps the API's error text kept in an error.
const maxMessage = 200

// guarded returns a copy of c whose transport summarises error answers
// before anything reads them: a proxy that echoes the request's headers
// (the Basic credential among them) in a 502 page must not put them into
// an error, a report or a log.
func guarded(c *http.Client) *http.Client {
	if _, ok := c.Transport.(summarising); ok {
		return c
	}
	out := *c
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	out.Transport = summarising{next: next}
	return &out
}

// summarising replaces the body of every non-2xx answer with the
// management API's own error fields ({"error": ..., "reason": ...}),
// capped and with registered secrets masked; any other body (HTML, text,
// a JSON of another shape) is dropped.
type summarising struct{ next http.RoundTripper }

func (s summarising) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 300 {
		return resp, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	msg := apiError(body)
	resp.Body = io.NopCloser(strings.NewReader(msg))
	resp.ContentLength = int64(len(msg))
	resp.Header = resp.Header.Clone()
	resp.Header.Del("Content-Length")
	resp.Header.Del("Content-Encoding")
	resp.Header.Set("Content-Type", "text/plain")
	return resp, nil
}

// apiError reads the management API's error shape; "" for anything else.
func apiError(body []byte) string {
	var e struct {
		Error  string `json:"error"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &e) != nil {
		return ""
	}
	msg := e.Error
	if e.Reason != "" && e.Reason != e.Error {
		if msg != "" {
			msg += ": "
		}
		msg += e.Reason
	}
	msg = strings.Join(strings.Fields(redact.String(msg)), " ")
	if len(msg) > maxMessage {
		cut := maxMessage
		for cut > 0 && msg[cut]&0xC0 == 0x80 {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}
