// Package hostile serves misbehaving HTTP answers on loopback, for the
// tests that prove every network collector and sink finishes within its
// budget, degrades only its scope and leaks no secret. Each behaviour is an
// http.Handler; Server starts one with httptest.
package hostile

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Canary is a secret that must never appear in any output. Tests configure
// it as a token or password and assert it is absent from everything the
// process writes.
const Canary = "canary-s3cr3t-7f3a9b1c"

// Server starts h on loopback and closes it when the test ends. Stalled
// handlers are released before Close, so the test does not hang on them.
func Server(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(withRelease(r, release)))
	}))
	t.Cleanup(func() {
		close(release)
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

type releaseKey struct{}

func withRelease(r *http.Request, ch chan struct{}) contextWithRelease {
	return contextWithRelease{Context: r.Context(), ch: ch}
}

// Stall accepts the request and never answers (until the client gives up
// or the test ends).
func Stall() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		waitDone(r)
	})
}

// Drip answers 200 with headers at once, then one byte every interval,
// forever: a client without a whole-call deadline never finishes reading.
func Drip(interval time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		fl, _ := w.(http.Flusher)
		for {
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
			select {
			case <-time.After(interval):
			case <-r.Context().Done():
				return
			case <-releaseOf(r):
				return
			}
		}
	})
}

// RetryAfter answers status (429 or 503) with a Retry-After of seconds.
func RetryAfter(status, seconds int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", fmt.Sprint(seconds))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}`, status)
	})
}

// Huge answers 200 with a JSON document of about size bytes: an array of
// one long string, so a decoder reads it all before failing or succeeding.
func Huge(size int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"x":"`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for n := 0; n < size; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`"}`))
	})
}

// EchoHeaders answers status (502) with a body that repeats every request
// header, as some proxies do: the Authorization header, with its token,
// comes back in the error body.
func EchoHeaders(status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("<html><body><h1>Bad Gateway</h1><pre>")
		fmt.Fprintf(&b, "%s %s\n", r.Method, r.URL.String())
		// The credentials first, then the rest in order: a collector that
		// quoted only the start of a body must still meet them.
		keys := slices.Sorted(maps.Keys(r.Header))
		if i := slices.Index(keys, "Authorization"); i > 0 {
			keys = append([]string{"Authorization"}, slices.Delete(keys, i, i+1)...)
		}
		for _, k := range keys {
			for _, v := range r.Header[k] {
				fmt.Fprintf(&b, "%s: %s\n", k, v)
			}
		}
		if u, p, ok := r.BasicAuth(); ok {
			fmt.Fprintf(&b, "user=%s password=%s\n", u, p)
		}
		b.WriteString("</pre></body></html>")
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		w.Write([]byte(b.String()))
	})
}

// Counter counts requests to a handler, for asserting bounds on pages and
// retries.
type Counter struct {
	mu sync.Mutex
	n  int
	h  http.Handler
}

// Count wraps h.
func Count(h http.Handler) *Counter { return &Counter{h: h} }

func (c *Counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	c.h.ServeHTTP(w, r)
}

// N is how many requests arrived.
func (c *Counter) N() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// AcceptAndStall listens on loopback, accepts TCP connections and never
// writes a byte (a PostgreSQL or AMQP port that hangs). It returns the
// address; connections are closed when the test ends.
func AcceptAndStall(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}
