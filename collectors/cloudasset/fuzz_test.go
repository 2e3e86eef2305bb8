package cloudasset

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Seeds beyond these live in testdata/fuzz/<target>/.

// FuzzParseFile: whatever a file holds, reading it and building artifacts
// from it never panics; every artifact has a URI and carries a unit under
// the project its URI names, and every error names a unit.
func FuzzParseFile(f *testing.F) {
	// Small seeds: the mutator works far better on them than on a whole
	// estate (see testdata/fuzz/FuzzParseFile for larger ones).
	small := sampleEstate()
	small.projects = small.projects[1:]
	res, pol := searchOutput(small)
	f.Add(res)
	f.Add(pol)
	f.Add([]byte(`[{"name":"//bigquery.googleapis.com/projects/p/datasets/d/tables/t","assetType":"bigquery.googleapis.com/Table","versionedResources":[{"resource":{"numRows":"x"}}]}]`))
	f.Add([]byte("{\"asset_type\":\"iam.googleapis.com/ServiceAccountKey\",\"name\":\"//iam.googleapis.com/projects/p/serviceAccounts/1/keys/k\",\"resource\":{\"data\":{}}}\n{"))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		inv := newInventory()
		if err := parseFile(data, "f.json", inv); err != nil {
			return
		}
		c := &Collector{OwnerLabel: "owner", sel: correlate.MustSelector(), now: func() time.Time { return auditNow },
			Principals: []Principal{{Member: "serviceAccount:" + faultAccount}}}
		b := c.build(inv)
		for _, a := range b.artifacts {
			if a.URI == "" || a.Kind == "" {
				t.Fatalf("artifact without URI or kind: %+v", a)
			}
			_, rest, _ := strings.Cut(a.URI, "://")
			project, _, _ := strings.Cut(rest, "/")
			if !model.ScopeWithin(a.Scope, model.JoinScope(project)) && !strings.HasPrefix(a.Scope, "-/") {
				t.Fatalf("artifact %s carries unit %q, outside its project", a.URI, a.Scope)
			}
		}
		for _, e := range b.errs {
			if e.err == nil {
				t.Fatalf("an error entry without an error at %q", e.unit)
			}
		}
	})
}

// FuzzResourceName: reading any full resource name never panics, and the
// unit of a failure is "" or lies under one project, at most three
// segments deep (so one account's failure never covers another's).
func FuzzResourceName(f *testing.F) {
	for _, s := range []string{
		"//bigquery.googleapis.com/projects/p/datasets/d/tables/t",
		"//iam.googleapis.com/projects/p/serviceAccounts/a@p.iam.gserviceaccount.com/keys/k",
		"//iam.googleapis.com/projects/p/serviceAccounts/123/keys/k",
		"//cloudresourcemanager.googleapis.com/projects/123",
		"//pubsub.googleapis.com/projects//topics/t",
		"//x", "", "projects/p", "//a/b/c/d/e/f/g%2F",
	} {
		f.Add(s, typeKey)
	}
	f.Fuzz(func(t *testing.T, name, assetType string) {
		u := unitOf(assetType, name)
		_ = projectID(name)
		if u == "" {
			return
		}
		if n := strings.Count(u, "/"); n > 2 {
			t.Fatalf("unit of %q (%s) = %q: %d separators", name, assetType, u, n)
		}
		if p := projectID(name); p == "" || !model.ScopeWithin(u, model.JoinScope(p)) {
			t.Fatalf("unit %q of %q is not under its project %q", u, name, p)
		}
	})
}

// FuzzDeclaredTerm: a URI a plan declares becomes a search term that
// cannot break out of its place in the query (no space, so no OR of its
// own; quotes only around the whole phrase).
func FuzzDeclaredTerm(f *testing.F) {
	for _, s := range []string{
		"bigquery://p/d/t", "bigquery://p/d", "pubsub://p/topics/t", "gcpiam://p/serviceAccounts/a@b/keys/k",
		`bigquery://p/d/t" OR x`, "gcpiam://p/bindings/roles/x/user:A@B?condition=c", "bigquery://p/d/acl/WRITER/group:g@x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		term := declaredResourceTerm(uri)
		if strings.ContainsAny(term, " \t\n") {
			t.Fatalf("term %q of %q holds a space", term, uri)
		}
		if q := strings.Count(term, `"`); q != 0 && (q != 2 || !strings.HasPrefix(term, `"`) || !strings.HasSuffix(term, `"`)) {
			t.Fatalf("term %q of %q has stray quotes", term, uri)
		}
		_ = declaredGrantMember(uri)
	})
}
