package gcpiam

import (
	"context"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// Every artifact carries the unit that reported it, and every error names
// the unit that failed, with the same spelling: the policy is the project,
// the account listing p/serviceAccounts, one account's keys
// p/serviceAccounts/<email>.
func TestUnits(t *testing.T) {
	f := estate(t)
	delete(f.keys, "replay@p-one.iam.gserviceaccount.com") // its keys.list answers 403
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	const broken = "p-one/serviceAccounts/replay@p-one.iam.gserviceaccount.com"
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != broken {
		t.Fatalf("errors %+v; want one at %s", sink.Errors, broken)
	}
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	for _, a := range sink.Artifacts {
		want := "p-one"
		if a.Kind == model.KindCredential {
			email := strings.TrimPrefix(a.Attr(model.AttrPrincipal), "serviceAccount:")
			want = model.JoinScope(emailProject(email), "serviceAccounts", email)
		}
		if a.Scope != want {
			t.Errorf("%s: scope %q; want %q", a.URI, a.Scope, want)
		}
		if !cov.Answered(a.Scope) {
			t.Errorf("%s (%s) tainted by one account's failed keys", a.URI, a.Scope)
		}
	}
	if cov.Answered(broken) {
		t.Error("the failed account's keys count as answered")
	}
}

// An account found only through a binding in another project's policy has
// its keys under that project: when that policy fails next time, the
// account is not found, and its keys must read as not answered, not gone.
func TestKeysUnitFollowsDiscovery(t *testing.T) {
	f := estate(t)
	f.keys["bf-9009-x@p-far.iam.gserviceaccount.com"] = []string{
		keyJSON("p-far", "bf-9009-x@p-far.iam.gserviceaccount.com", "k1", "2026-01-02T10:00:00Z", "9999-12-31T23:59:59Z", false),
	}
	f.policies["p-two"] = `{"version":1,"etag":"ACAB","bindings":[{"role":"roles/editor","members":["serviceAccount:bf-9009-x@p-far.iam.gserviceaccount.com"]}]}`
	srv := f.start()
	c := newCollector(t, srv.URL, "p-two")
	c.Principals = nil
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	a := sink.Artifact("gcpiam://p-far/serviceAccounts/bf-9009-x@p-far.iam.gserviceaccount.com/keys/k1")
	if a == nil {
		t.Fatalf("key missing: %v", uris(sink))
	}
	if !model.ScopeWithin(a.Scope, "p-two") {
		t.Errorf("scope %q is not under p-two, the policy that found the account", a.Scope)
	}

	f.denied["p-two"] = true
	sink = collectors.NewTestSink()
	collectors.Collect(context.Background(), c, sink)
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	if cov.Answered(a.Scope) {
		t.Errorf("with p-two's policy refused, the key's unit %q still counts as answered: %+v", a.Scope, sink.Errors)
	}
}

func TestMalformedAnswersAreErrors(t *testing.T) {
	f := estate(t)
	f.policies["p-one"] = `{"bindings":[]}` // no etag: not a policy
	f.accounts["p-one"] = append(f.accounts["p-one"], `{"displayName":"bf-1 no email"}`)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	sink := collectors.NewTestSink()
	collectors.Collect(context.Background(), c, sink)
	got := map[string]string{}
	for _, e := range sink.Errors {
		got[e.Scope] = e.Error
	}
	if !strings.Contains(got["p-one"], "not a policy") {
		t.Errorf("policy without etag: %+v", sink.Errors)
	}
	if !strings.Contains(got["p-one/serviceAccounts"], "no email") {
		t.Errorf("account without e-mail: %+v", sink.Errors)
	}
}

func TestEmailProject(t *testing.T) {
	for email, want := range map[string]string{
		"a@p-one.iam.gserviceaccount.com":           "p-one",
		"P-Two@appspot.gserviceaccount.com":         "p-two",
		"123-compute@developer.gserviceaccount.com": "",
		"not-an-email": "",
	} {
		if got := emailProject(email); got != want {
			t.Errorf("emailProject(%q) = %q; want %q", email, got, want)
		}
	}
}

func TestBadTimeoutsRejected(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "gcpiam", "projects": []any{"p"}})
}

// Every unit says what it read, machinery or not: the policy its bindings
// (roles/viewer too), the listing its accounts (etl and web too), each
// account its keys.
func TestReadsOfEveryUnit(t *testing.T) {
	f := estate(t)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	for _, r := range []struct {
		scope, what string
		read        int
	}{
		{"p-one", "bindings", 5},
		{"p-one/serviceAccounts", "service accounts", 5},
		{"p-one/serviceAccounts/bf-1234-runner@p-one.iam.gserviceaccount.com", "service-account keys", 2},
		{"", "service-account keys", 5},
	} {
		if n, p := sink.Read(r.scope, r.what); n != r.read || p != 0 {
			t.Errorf("%q: read %d %s (%d in part), want %d", r.scope, n, r.what, p, r.read)
		}
	}
}

// The units are each project's policy and account listing, and the keys
// of accounts of projects not configured under their own project; shards
// divide them, and every key is read by exactly one shard.
func TestUnitsDeclaredAndSharded(t *testing.T) {
	f := estate(t)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one", "p-two")
	units, err := c.Units(context.Background())
	if want := "p-one p-one/serviceAccounts p-two p-two/serviceAccounts p-other/serviceAccounts"; err != nil || strings.Join(units, " ") != want {
		t.Fatalf("units %q, %v; want %s", units, err, want)
	}
	keys := map[string]int{}
	for i := range 3 {
		c := newCollector(t, srv.URL, "p-one", "p-two")
		run, _ := collectors.ShardInstances([]collectors.Instance{{Name: "gcpiam", Type: "gcpiam", Collector: c}}, collectors.ShardSpec{Index: i, Count: 3}, nil)
		est, err := collectors.Run(context.Background(), run, 1, now)
		if err != nil || len(est.Coverage) != 1 || len(est.Coverage[0].Errors) != 0 {
			t.Fatalf("shard %d: %v %+v", i, err, est.Coverage)
		}
		for _, a := range est.Artifacts {
			if a.Kind == model.KindCredential {
				keys[a.URI]++
			}
		}
	}
	if len(keys) != 5 {
		t.Errorf("keys read %v; want 5", keys)
	}
	for uri, n := range keys {
		if n != 1 {
			t.Errorf("%s read by %d shards", uri, n)
		}
	}
}
