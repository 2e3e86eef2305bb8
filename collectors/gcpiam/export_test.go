package gcpiam

import "testing"

// FaultFake lets faultmatrix_test.go (package gcpiam_test) break one unit
// of the fake IAM APIs between two collections.
type FaultFake struct{ f *fakeGCP }

// FaultAccount is BF-7001's elevated principal: bound in proj's policy
// (BF003), listed in proj, and holding a key that never expires (BF004).
const FaultAccount = "bf-7001@proj.iam.gserviceaccount.com"

// NewFaultFixture serves project proj (the binding, the account and its
// key, next to production members) and project other (nothing of
// BF-7001's), so failing proj is not failing the whole source. The
// collector is configured and Init-ed.
func NewFaultFixture(t *testing.T) (*Collector, *FaultFake) {
	f := newFake(t)
	f.policies["proj"] = `{"version":3,"etag":"BwYx","bindings":[
		{"role":"roles/bigquery.dataEditor","members":["serviceAccount:` + FaultAccount + `","user:prod-owner@example.com"]},
		{"role":"roles/viewer","members":["group:analysts@example.com"]}]}`
	f.accounts["proj"] = []string{
		accountJSON("proj", "etl@proj.iam.gserviceaccount.com", "ETL", false),
		accountJSON("proj", FaultAccount, "BF-7001 replay runner", false),
	}
	f.keys[FaultAccount] = []string{keyJSON("proj", FaultAccount, "k1", "2026-01-05T10:00:00Z", "9999-12-31T23:59:59Z", false)}
	f.policies["other"] = `{"version":1,"etag":"ACAB","bindings":[{"role":"roles/viewer","members":["user:bob@example.com"]}]}`
	srv := f.start()
	c := newCollector(t, srv.URL, "proj", "other")
	c.Principals = []Principal{{Member: "serviceAccount:" + FaultAccount, BackfillID: "BF-7001"}}
	return c, &FaultFake{f: f}
}

// Deny makes the policy and account listing of project answer 403.
func (ff *FaultFake) Deny(project string) {
	ff.f.mu.Lock()
	defer ff.f.mu.Unlock()
	ff.f.denied[project] = true
}

// Fail makes every request whose path ends with suffix answer status.
func (ff *FaultFake) Fail(suffix string, status int) {
	ff.f.mu.Lock()
	defer ff.f.mu.Unlock()
	ff.f.fail[suffix] = status
}
