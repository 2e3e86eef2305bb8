package remote

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
)

// Call is one request to a JSON API.
type Call struct {
	Method, URL string
	// Body is sent as ContentType (application/json when empty); nil
	// sends no body.
	Body        []byte
	ContentType string
	// Auth is the Authorization header, "" for none (BasicAuth makes one).
	Auth string
}

// Send makes c through DoHTTP (retried under p, the request built anew
// for each attempt), asking for JSON. On success the caller closes the
// body. It is the one way a request to a JSON API is built.
func Send(ctx context.Context, hc *http.Client, p RetryPolicy, c Call) (*http.Response, error) {
	return DoHTTP(ctx, hc, p, func() (*http.Request, error) {
		var body io.Reader
		if c.Body != nil {
			body = bytes.NewReader(c.Body)
		}
		req, err := http.NewRequest(c.Method, c.URL, body)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if c.Body != nil {
			ct := c.ContentType
			if ct == "" {
				ct = "application/json"
			}
			req.Header.Set("Content-Type", ct)
		}
		if c.Auth != "" {
			req.Header.Set("Authorization", c.Auth)
		}
		return req, nil
	})
}

// BasicAuth is the Authorization header of an HTTP basic login.
func BasicAuth(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}
