package gcs

import (
	_ "embed"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/discovery"
)

// The official description of the Cloud Storage JSON API
// (testdata/SOURCE.md).
//
//go:embed testdata/storage-api.json
var storageDescription []byte

var storageDoc = sync.OnceValue(func() *discovery.Doc {
	d, err := discovery.Load(storageDescription)
	if err != nil {
		panic("testdata/storage-api.json: " + err.Error())
	}
	return d
})

// serveChecked serves a fake behind the Cloud Storage description: every
// request the collector or the fix sends, and every successful answer of
// the fake's, is checked against its method, and what breaks it fails the
// test at its end. A request the description refuses is answered 400, as
// Google would.
func serveChecked(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	guard := &discovery.Guard{Doc: storageDoc()}
	srv := httptest.NewServer(guard.Wrap(h))
	t.Cleanup(func() {
		srv.Close()
		for _, v := range guard.Violations() {
			t.Errorf("Cloud Storage's API description: %s", v)
		}
	})
	return srv
}
