package gcpiam

import (
	_ "embed"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/discovery"
)

// The official descriptions of the two APIs the collector and its fix
// actions call (testdata/SOURCE.md).
var (
	//go:embed testdata/iam-api.json
	iamDescription []byte
	//go:embed testdata/cloudresourcemanager-api.json
	crmDescription []byte
)

var (
	iamDoc = sync.OnceValue(func() *discovery.Doc { return discovery.MustLoad("testdata/iam-api.json", iamDescription) })
	crmDoc = sync.OnceValue(func() *discovery.Doc {
		return discovery.MustLoad("testdata/cloudresourcemanager-api.json", crmDescription)
	})
)

// serveChecked serves a fake behind the IAM v1 (paths under /v1/) and
// Resource Manager v3 (under /v3/) descriptions: every request the
// clients send, and every successful answer of the fake's, is checked
// against its method, and what breaks it fails the test at its end. A
// request the description refuses is answered 400, as Google would.
func serveChecked(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	iam, crm := &discovery.Guard{Doc: iamDoc()}, &discovery.Guard{Doc: crmDoc()}
	iamH, crmH := iam.Wrap(h), crm.Wrap(h)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v3/") {
			crmH.ServeHTTP(w, r)
			return
		}
		iamH.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.Close()
		for _, v := range append(iam.Violations(), crm.Violations()...) {
			t.Errorf("API description: %s", v)
		}
	})
	return srv
}
