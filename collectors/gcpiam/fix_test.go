package gcpiam

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/bfaudit/bfaudit/collectors/airflow" // the replay job's pause command

	crm "google.golang.org/api/cloudresourcemanager/v3"
	iam "google.golang.org/api/iam/v1"
	"google.golang.org/api/option"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// fakeIAM serves the Resource Manager v3 getIamPolicy/setIamPolicy and IAM
// v1 key get/disable/delete REST paths, with the real JSON shapes and
// error bodies (minimally after collectors/gcpiam's fake). setIamPolicy
// honours the etag as IAM does: a stale one answers 409 ABORTED.
type fakeIAM struct {
	mu     sync.Mutex
	policy crm.Policy // project "proj"
	etag   int
	keys   map[string]bool // key id -> disabled
	// bumpBeforeSet changes the policy between fix's read and its write,
	// as a concurrent edit would.
	bumpBeforeSet bool
	sets          int
}

const iamSA = "bf-1234@proj.iam.gserviceaccount.com"

func (f *fakeIAM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fail := func(code int, status, msg string) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q}}`, code, msg, status)
	}
	path := r.URL.Path
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && path == "/v3/projects/proj:getIamPolicy":
		if !strings.Contains(string(body), `"requestedPolicyVersion":3`) {
			fail(http.StatusBadRequest, "INVALID_ARGUMENT", "test fake: requestedPolicyVersion must be 3")
			return
		}
		f.policy.Etag = fmt.Sprintf("BwY%d", f.etag)
		_ = json.NewEncoder(w).Encode(f.policy)
	case r.Method == http.MethodPost && path == "/v3/projects/proj:setIamPolicy":
		f.sets++
		if f.bumpBeforeSet {
			f.etag++
		}
		var req crm.SetIamPolicyRequest
		if err := json.Unmarshal(body, &req); err != nil || req.Policy == nil {
			fail(http.StatusBadRequest, "INVALID_ARGUMENT", "test fake: no policy")
			return
		}
		if req.Policy.Etag != fmt.Sprintf("BwY%d", f.etag) {
			fail(http.StatusConflict, "ABORTED", "There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff.")
			return
		}
		if req.Policy.Version != 3 {
			fail(http.StatusBadRequest, "INVALID_ARGUMENT", "test fake: a policy with conditions needs version 3")
			return
		}
		f.policy.Bindings = req.Policy.Bindings
		f.etag++
		f.policy.Etag = fmt.Sprintf("BwY%d", f.etag)
		_ = json.NewEncoder(w).Encode(f.policy)
	case strings.HasPrefix(path, "/v1/projects/-/serviceAccounts/"+iamSA+"/keys/"):
		id := strings.TrimPrefix(path, "/v1/projects/-/serviceAccounts/"+iamSA+"/keys/")
		id, verb, _ := strings.Cut(id, ":")
		disabled, ok := f.keys[id]
		if !ok {
			fail(http.StatusNotFound, "NOT_FOUND", "Service account key "+id+" does not exist.")
			return
		}
		switch {
		case r.Method == http.MethodGet && verb == "":
			fmt.Fprintf(w, `{"name":"projects/proj/serviceAccounts/%s/keys/%s","validAfterTime":"2026-01-05T10:00:00Z","validBeforeTime":"9999-12-31T23:59:59Z","keyAlgorithm":"KEY_ALG_RSA_2048","keyOrigin":"GOOGLE_PROVIDED","keyType":"USER_MANAGED","disabled":%t}`, iamSA, id, disabled)
		case r.Method == http.MethodPost && verb == "disable":
			f.keys[id] = true
			io.WriteString(w, "{}")
		case r.Method == http.MethodDelete && verb == "":
			delete(f.keys, id)
			io.WriteString(w, "{}")
		default:
			fail(http.StatusNotFound, "NOT_FOUND", "test fake: no route for "+r.Method+" "+path)
		}
	default:
		fail(http.StatusNotFound, "NOT_FOUND", "test fake: no route for "+r.Method+" "+path)
	}
}

// members lists who holds role under the condition titled title ("" for
// none).
func (f *fakeIAM) members(role, title string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.policy.Bindings {
		if _, t := condition(b); b.Role == role && t == title {
			return b.Members
		}
	}
	return nil
}

// The backfill's account holds roles/bigquery.dataEditor unconditionally
// (next to a production member) and under a condition titled
// bf-1234-window; the audit saw only the unconditional one and the
// account's key.
func newFakeIAM(t *testing.T) (*fakeIAM, map[string]remedy.Actor) {
	t.Helper()
	f := &fakeIAM{etag: 1, keys: map[string]bool{"k1": false}, policy: crm.Policy{Version: 3, Bindings: []*crm.Binding{
		{Role: "roles/bigquery.dataEditor", Members: []string{"serviceAccount:" + iamSA, "user:prod-owner@example.com"}},
		{Role: "roles/bigquery.dataEditor", Members: []string{"serviceAccount:" + iamSA},
			Condition: &crm.Expr{Title: "bf-1234-window", Expression: `request.time < timestamp("2027-01-01T00:00:00Z")`}},
		{Role: "roles/viewer", Members: []string{"group:analysts@example.com"}},
	}}}
	srv := serveChecked(t, f)
	sys, err := newIAM(&Collector{Endpoint: srv.URL, Timeout: 5 * time.Second, clientOptions: []option.ClientOption{option.WithoutAuthentication()}})
	if err != nil {
		t.Fatal(err)
	}
	return f, map[string]remedy.Actor{"iam": sys}
}

// iamEstate is BF-1234 with the artifacts the gcpiam collector emits for
// the binding (cond: its condition, nil for none) and the key.
func iamEstate(cond *crm.Expr) *model.Estate {
	est := fixtest.Estate(true)
	member := "serviceAccount:" + iamSA
	var expr, title string
	if cond != nil {
		expr, title = cond.Expression, cond.Title
	}
	grant := GrantArtifact("proj", "roles/bigquery.dataEditor", member, expr, title,
		GrantURI("proj", "roles/bigquery.dataEditor", member, cond), "BF-1234", "declared", fixtest.Now)
	key := KeyArtifact(iamSA, "proj", "proj", false, "BF-1234", "declared", iamKey, fixtest.Now)
	est.Artifacts = nil
	for _, a := range []model.Artifact{grant, key} {
		a.System, a.Source = "gcpiam", "iam"
		est.Artifacts = append(est.Artifacts, a)
	}
	est.Backfills[0].AssetsToRemove = nil
	est.Backfills[0].ElevatedAccess = []model.ElevatedAccess{{Principal: member, Expiry: fixtest.Now.AddDate(0, -2, 0)}}
	est.Coverage = []model.Coverage{{Source: "plans", Status: model.CoverageOK}, {Source: "iam", Status: model.CoverageOK}}
	return est
}

var iamKey = keyOf("k1")

func keyOf(id string) *iam.ServiceAccountKey {
	return &iam.ServiceAccountKey{Name: "projects/proj/serviceAccounts/" + iamSA + "/keys/" + id, ValidAfterTime: "2026-01-05T10:00:00Z",
		ValidBeforeTime: "9999-12-31T23:59:59Z", KeyOrigin: "GOOGLE_PROVIDED", KeyAlgorithm: "KEY_ALG_RSA_2048"}
}

// reaudit reads the IAM artifacts again as fix does before acting, and
// lists those still there.
func reaudit(t *testing.T, sys map[string]remedy.Actor, est *model.Estate) []string {
	t.Helper()
	var there []string
	for i := range est.Artifacts {
		a := &est.Artifacts[i]
		obs, err := sys["iam"].Read(context.Background(), a, remedy.Action{})
		if err != nil {
			t.Fatal(err)
		}
		if obs.Found && obs.State["disabled"] != "true" {
			there = append(there, a.URI)
		}
	}
	return there
}

// The member leaves the unconditional binding only (the production member
// stays in it, the conditional binding of the same role and member is
// untouched), and the key is disabled (reversible); deleting it is not
// allowed.
func TestApplyIAM(t *testing.T) {
	f, sys := newFakeIAM(t)
	est := iamEstate(nil)
	in := fixtest.Inputs(t, est)
	res := fixtest.Apply(t, in, "BF-1234", sys, fixtest.OpenStore(t), remedy.RevokeGrant)
	if got := fixtest.StatusOf(res, remedy.RevokeGrant); got != fix.StatusApplied {
		t.Fatalf("revoke_grant: %s %+v", got, res)
	}
	if got := fixtest.StatusOf(res, remedy.DisableKey); got != fix.StatusApplied {
		t.Errorf("disable_key: %s %+v", got, res)
	}
	if got := fixtest.StatusOf(res, remedy.DeleteKey); got != fix.StatusNotAllowed {
		t.Errorf("delete_key without fix.allow: %s", got)
	}
	if got := f.members("roles/bigquery.dataEditor", ""); !slices.Equal(got, []string{"user:prod-owner@example.com"}) {
		t.Errorf("unconditional binding after: %v", got)
	}
	if got := f.members("roles/bigquery.dataEditor", "bf-1234-window"); !slices.Equal(got, []string{"serviceAccount:" + iamSA}) {
		t.Errorf("the conditional binding was touched: %v", got)
	}
	if got := f.members("roles/viewer", ""); len(got) != 1 {
		t.Errorf("another binding was touched: %v", got)
	}
	if !f.keys["k1"] {
		t.Errorf("key not disabled: %v", f.keys)
	}
	if there := reaudit(t, sys, est); len(there) != 0 {
		t.Errorf("still there after fix --apply: %v", there)
	}
}

// With delete_key allowed the key, disabled at access revoked, is deleted
// at retired: the disable done by the same run is not a change.
func TestApplyIAMDeleteKey(t *testing.T) {
	f, sys := newFakeIAM(t)
	res := fixtest.Apply(t, fixtest.Inputs(t, iamEstate(nil)), "BF-1234", sys, fixtest.OpenStore(t), remedy.RevokeGrant, remedy.DeleteKey)
	if got := fixtest.StatusOf(res, remedy.DeleteKey); got != fix.StatusApplied {
		t.Errorf("delete_key: %s %+v", got, res)
	}
	if _, ok := f.keys["k1"]; ok {
		t.Errorf("key still there: %v", f.keys)
	}
}

// Revoking the conditional binding removes the member from it alone.
func TestApplyIAMConditional(t *testing.T) {
	f, sys := newFakeIAM(t)
	cond := &crm.Expr{Title: "bf-1234-window", Expression: `request.time < timestamp("2027-01-01T00:00:00Z")`}
	res := fixtest.Apply(t, fixtest.Inputs(t, iamEstate(cond)), "BF-1234", sys, fixtest.OpenStore(t), remedy.RevokeGrant)
	if got := fixtest.StatusOf(res, remedy.RevokeGrant); got != fix.StatusApplied {
		t.Fatalf("revoke_grant: %s %+v", got, res)
	}
	if got := f.members("roles/bigquery.dataEditor", "bf-1234-window"); got != nil {
		t.Errorf("conditional binding after: %v", got)
	}
	if got := f.members("roles/bigquery.dataEditor", ""); len(got) != 2 {
		t.Errorf("the unconditional binding was touched: %v", got)
	}
}

// A binding whose condition changed since the audit (same title, another
// expression) is skipped and the policy is not written.
func TestApplyIAMChangedSkipped(t *testing.T) {
	f, sys := newFakeIAM(t)
	cond := &crm.Expr{Title: "bf-1234-window", Expression: `request.time < timestamp("2026-12-01T00:00:00Z")`}
	res := fixtest.Apply(t, fixtest.Inputs(t, iamEstate(cond)), "BF-1234", sys, fixtest.OpenStore(t), remedy.RevokeGrant)
	if got := fixtest.StatusOf(res, remedy.RevokeGrant); got != fix.StatusSkipped {
		t.Errorf("revoke_grant on a changed binding: %s %+v", got, res)
	}
	if f.sets != 0 || len(f.members("roles/bigquery.dataEditor", "bf-1234-window")) != 1 {
		t.Errorf("the policy was written (%d) or changed: %+v", f.sets, f.policy.Bindings)
	}
}

// A policy changed between the read and the write fails the write (409
// ABORTED): reported failed, tried once, and the later steps wait.
func TestApplyIAMConcurrentEdit(t *testing.T) {
	f, sys := newFakeIAM(t)
	f.bumpBeforeSet = true
	res := fixtest.Apply(t, fixtest.Inputs(t, iamEstate(nil)), "BF-1234", sys, fixtest.OpenStore(t), remedy.RevokeGrant, remedy.DeleteKey)
	if got := fixtest.StatusOf(res, remedy.RevokeGrant); got != fix.StatusFailed {
		t.Errorf("revoke_grant on a policy changed in between: %s", got)
	}
	for _, r := range res {
		if r.Item.Action != nil && r.Item.Action.Name == remedy.RevokeGrant && !strings.Contains(r.Reason, "ABORTED") && !strings.Contains(r.Reason, "409") {
			t.Errorf("reason does not say the write was refused: %s", r.Reason)
		}
	}
	if got := fixtest.StatusOf(res, remedy.DeleteKey); got != fix.StatusWaits {
		t.Errorf("delete_key after a failed revoke: %s", got)
	}
	if !fix.Failed(res) || f.sets != 1 || len(f.members("roles/bigquery.dataEditor", "")) != 2 {
		t.Errorf("want one refused write and nothing changed: sets %d, %+v", f.sets, f.policy.Bindings)
	}
}

// Under --apply, an earlier step's command that fails (here pausing the
// replay job, with no source that can act on it) does not hold the
// revocation back; it still holds the deletions.
func TestApplyRevokesPastAFailedStep(t *testing.T) {
	_, sys := newFakeIAM(t)
	est := iamEstate(nil)
	est.Artifacts = append(est.Artifacts, model.Artifact{Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", Scope: "bf_1234_replay",
		State: model.StateEnabled, URI: "airflow://scheduler/dags/bf_1234_replay", Name: "bf_1234_replay", BackfillID: "BF-1234"})
	est.Coverage = append(est.Coverage, model.Coverage{Source: "scheduler", Status: model.CoverageOK})
	res := fixtest.Apply(t, fixtest.Inputs(t, est), "BF-1234", sys, fixtest.OpenStore(t), remedy.RevokeGrant, remedy.DeleteKey, remedy.DeleteJob)
	if got := fixtest.StatusOf(res, remedy.PauseJob); got != fix.StatusFailed {
		t.Fatalf("pause_job with no scheduler system: %s", got)
	}
	for _, a := range []string{remedy.RevokeGrant, remedy.DisableKey} {
		if got := fixtest.StatusOf(res, a); got != fix.StatusApplied {
			t.Errorf("%s: %s, want applied past the failed pause: %+v", a, got, res)
		}
	}
	for _, a := range []string{remedy.DeleteKey, remedy.DeleteJob} {
		if got := fixtest.StatusOf(res, a); got != fix.StatusWaits {
			t.Errorf("%s: %s, want waits after the failed pause", a, got)
		}
	}
}
