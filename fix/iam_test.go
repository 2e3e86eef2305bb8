package fix_test

import (
	"github.com/bfaudit/bfaudit/collectors/gcpiam"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	crm "google.golang.org/api/cloudresourcemanager/v3"
	iam "google.golang.org/api/iam/v1"
)

// iamSA is the service account of the engine tests' IAM estate: what
// the gcpiam collector emits for an elevated binding and a key of BF-1234.
const iamSA = "bf-1234@proj.iam.gserviceaccount.com"

// iamEstate is BF-1234 with the artifacts the gcpiam collector emits for
// the binding (cond: its condition, nil for none) and the key.
func iamEstate(cond *crm.Expr) *model.Estate {
	est := fixtest.Estate(true)
	member := "serviceAccount:" + iamSA
	var expr, title string
	if cond != nil {
		expr, title = cond.Expression, cond.Title
	}
	grant := gcpiam.GrantArtifact("proj", "roles/bigquery.dataEditor", member, expr, title,
		gcpiam.GrantURI("proj", "roles/bigquery.dataEditor", member, cond), "BF-1234", "declared", fixtest.Now)
	key := gcpiam.KeyArtifact(iamSA, "proj", "proj", false, "BF-1234", "declared", iamKey, fixtest.Now)
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
