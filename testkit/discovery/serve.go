package discovery

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// MustLoad is Load of a description a test embeds; name (its file) is in
// the panic of one that does not load.
func MustLoad(name string, b []byte) *Doc {
	d, err := Load(b)
	if err != nil {
		panic(name + ": " + err.Error())
	}
	return d
}

// Serve serves a fake behind doc for the length of the test: every
// request sent to it, and every successful answer of the fake's, is
// checked against its method (path, method, parameters, body fields), and
// what breaks it fails the test at its end, each violation after what
// (the API's name). A request the description refuses is answered 400, as
// the service would.
func Serve(t testing.TB, doc *Doc, what string, h http.Handler) *httptest.Server {
	t.Helper()
	guard := &Guard{Doc: doc}
	srv := httptest.NewServer(guard.Wrap(h))
	t.Cleanup(func() {
		srv.Close()
		for _, v := range guard.Violations() {
			t.Errorf("%s: %s", what, v)
		}
	})
	return srv
}
