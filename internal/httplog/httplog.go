// Package httplog logs every HTTP call bfaudit makes to a source or a sink
// (`--verbose`): method, URL without credentials or secret query values,
// status and duration, at debug level. The logger travels in the context
// (WithLogger), so the calls of one run are logged to that run's logger
// and nothing is global; a call whose context has none costs a lookup.
//
// Calls are logged where they are made: Wrap is a RoundTripper for clients
// built in one place (the Google APIs, client-go, the sinks), Log is for a
// helper that sends requests itself (remote.DoHTTP).
package httplog

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
)

type ctxKey struct{}

// WithLogger returns ctx carrying l: every HTTP call made under it is
// logged to l at debug level.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// FromContext returns the run's logger ctx carries, whatever its level, for
// a warning a source wants in the run's log; nil when ctx has none.
func FromContext(ctx context.Context) *slog.Logger {
	l, _ := ctx.Value(ctxKey{}).(*slog.Logger)
	return l
}

func logger(ctx context.Context) *slog.Logger {
	l, _ := ctx.Value(ctxKey{}).(*slog.Logger)
	if l == nil || !l.Enabled(ctx, slog.LevelDebug) {
		return nil
	}
	return l
}

// Wrap returns a RoundTripper that sends through base (nil: the default
// transport, looked up per call) and logs each call.
func Wrap(base http.RoundTripper) http.RoundTripper { return transport{base: base} }

type transport struct{ base http.RoundTripper }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	l := logger(req.Context())
	if l == nil {
		return base.RoundTrip(req)
	}
	start := time.Now()
	resp, err := base.RoundTrip(req)
	write(l, req, resp, err, time.Since(start))
	return resp, err
}

// Log logs one call made under ctx: req as sent, its answer (or err) and
// how long it took to arrive.
func Log(ctx context.Context, req *http.Request, resp *http.Response, err error, took time.Duration) {
	if l := logger(ctx); l != nil {
		write(l, req, resp, err, took)
	}
}

func write(l *slog.Logger, req *http.Request, resp *http.Response, err error, took time.Duration) {
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("url", redact.URLOf(req.URL)),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", redact.String(err.Error())))
	}
	attrs = append(attrs, slog.Duration("duration", took.Round(time.Millisecond)))
	l.LogAttrs(context.Background(), slog.LevelDebug, "http call", attrs...)
}
