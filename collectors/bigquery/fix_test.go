package bigquery

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"google.golang.org/api/option"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// fakeBigQuery serves the BigQuery v2 REST paths fix uses: tables.get and
// tables.delete, datasets.get and datasets.patch (which honours If-Match
// against the dataset's etag, as BigQuery does).
type fakeBigQuery struct {
	mu     sync.Mutex
	tables map[string]bool // "project/dataset/table"
	access []map[string]string
	etag   int
	// bumpBeforePatch changes the dataset between fix's read and its
	// patch, as a concurrent edit would.
	bumpBeforePatch bool
}

func (f *fakeBigQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/bigquery/v2/")
	parts := strings.Split(path, "/")
	fail := func(code int, reason string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":"%s","errors":[{"reason":"%s"}]}}`, code, reason, reason)
	}
	switch {
	case len(parts) == 6 && parts[0] == "projects" && parts[2] == "datasets" && parts[4] == "tables":
		key := parts[1] + "/" + parts[3] + "/" + parts[5]
		if !f.tables[key] {
			fail(http.StatusNotFound, "notFound")
			return
		}
		if r.Method == http.MethodDelete {
			delete(f.tables, key)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		fmt.Fprintf(w, `{"tableReference":{"projectId":%q,"datasetId":%q,"tableId":%q},"lastModifiedTime":"1758000000000"}`, parts[1], parts[3], parts[5])
	case len(parts) == 4 && parts[0] == "projects" && parts[2] == "datasets":
		if r.Method == http.MethodPatch {
			if f.bumpBeforePatch {
				f.etag++
			}
			if r.Header.Get("If-Match") != fmt.Sprint(f.etag) {
				fail(http.StatusPreconditionFailed, "preconditionFailed")
				return
			}
			var body struct {
				Access []map[string]string `json:"access"`
			}
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				fail(http.StatusBadRequest, "invalid")
				return
			}
			f.access = body.Access
			f.etag++
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"etag": fmt.Sprint(f.etag), "access": f.access})
	default:
		fail(http.StatusNotFound, "notFound")
	}
}

func bqEstate() *model.Estate {
	est := fixtest.Estate(true)
	est.Artifacts = []model.Artifact{
		{Kind: model.KindTable, System: "bigquery", Source: "wh", Scope: "p/d", State: model.StateActive,
			URI: "bigquery://p/d/bf_1234_tmp", Name: "d.bf_1234_tmp", BackfillID: "BF-1234"},
		{Kind: model.KindGrant, System: "bigquery", Source: "wh", Scope: "p/d", State: model.StateActive,
			URI: "bigquery://p/d/acl/WRITER/serviceAccount:bf-1234@p.iam.gserviceaccount.com", BackfillID: "BF-1234",
			Attributes: model.TagsOf(map[string]string{model.AttrPrincipal: "serviceAccount:bf-1234@p.iam.gserviceaccount.com", model.AttrRole: "WRITER", model.AttrTimeBound: "false"})},
	}
	est.Backfills[0].AssetsToRemove = []string{est.Artifacts[0].URI}
	est.Backfills[0].ElevatedAccess = []model.ElevatedAccess{{Principal: "serviceAccount:bf-1234@p.iam.gserviceaccount.com", Expiry: fixtest.Now.AddDate(0, -2, 0)}}
	est.Coverage = []model.Coverage{{Source: "plans", Status: model.CoverageOK}, {Source: "wh", Status: model.CoverageOK}}
	return est
}

func newFakeBigQuery(t *testing.T) (*fakeBigQuery, map[string]remedy.Actor) {
	t.Helper()
	fb := &fakeBigQuery{tables: map[string]bool{"p/d/bf_1234_tmp": true, "p/d/revenue": true}, etag: 1,
		access: []map[string]string{{"role": "WRITER", "userByEmail": "bf-1234@p.iam.gserviceaccount.com"},
			{"role": "READER", "userByEmail": "bf-1234@p.iam.gserviceaccount.com"},
			{"role": "OWNER", "specialGroup": "projectOwners"}}}
	srv := serveChecked(t, fb)
	sys, err := newBigQuery(&Collector{Endpoint: srv.URL, clientOptions: []option.ClientOption{option.WithoutAuthentication()}})
	if err != nil {
		t.Fatal(err)
	}
	return fb, map[string]remedy.Actor{"wh": sys}
}

// The ACL entry goes (allowed revoke_grant) with a patch conditioned on
// the etag, the other entries stay; the temp table goes (allowed
// drop_table) and the production table stays.
func TestApplyBigQuery(t *testing.T) {
	fb, sys := newFakeBigQuery(t)
	res := fixtest.Apply(t, fixtest.Inputs(t, bqEstate()), "BF-1234", sys, fixtest.OpenStore(t), remedy.RevokeGrant, remedy.DropTable)
	for _, a := range []string{remedy.RevokeGrant, remedy.DropTable} {
		if got := fixtest.StatusOf(res, a); got != fix.StatusApplied {
			t.Errorf("%s: %s %+v", a, got, res)
		}
	}
	if len(fb.access) != 2 || fb.access[0]["role"] != "READER" {
		t.Errorf("access after: %v", fb.access)
	}
	if fb.tables["p/d/bf_1234_tmp"] || !fb.tables["p/d/revenue"] {
		t.Errorf("tables after: %v", fb.tables)
	}
}

// A dataset changed between the read and the patch fails the patch (412)
// instead of being overwritten; the failure holds the retire step.
func TestApplyBigQueryConcurrentEdit(t *testing.T) {
	fb, sys := newFakeBigQuery(t)
	fb.bumpBeforePatch = true
	res := fixtest.Apply(t, fixtest.Inputs(t, bqEstate()), "BF-1234", sys, fixtest.OpenStore(t), remedy.RevokeGrant, remedy.DropTable)
	if got := fixtest.StatusOf(res, remedy.RevokeGrant); got != fix.StatusFailed {
		t.Errorf("revoke_grant on a dataset changed in between: %s", got)
	}
	if got := fixtest.StatusOf(res, remedy.DropTable); got != fix.StatusWaits {
		t.Errorf("drop_table after a failed revoke: %s", got)
	}
	if !fix.Failed(res) || len(fb.access) != 3 || !fb.tables["p/d/bf_1234_tmp"] {
		t.Errorf("nothing should have changed: access %v tables %v", fb.access, fb.tables)
	}
}
