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
	return discovery.MustLoad("testdata/storage-api.json", storageDescription)
})

// serveChecked serves a fake behind the Cloud Storage description
// (discovery.Serve): every request the collector or the fix sends, and
// every successful answer of the fake's, is checked against it.
func serveChecked(t *testing.T, h http.Handler) *httptest.Server {
	return discovery.Serve(t, storageDoc(), "Cloud Storage's API description", h)
}
