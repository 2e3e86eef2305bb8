package gcpiam

import (
	"context"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"google.golang.org/api/option"
)

// A plan's elevated-access service account whose binding was already
// removed, living in a project the source does not list, still has its
// keys read: a key left behind after the grant is revoked is the classic
// lingering credential, and the plan is the only place that names it.
// The config lists no principals; the selector carries the plan's.
func TestPlanPrincipalsKeysRead(t *testing.T) {
	f := estate(t)
	srv := f.start()
	sel := correlate.MustSelector()
	sel.AddAssets([]model.Backfill{{ID: "BF-7001", ElevatedAccess: []model.ElevatedAccess{
		{Principal: "serviceAccount:ext@p-other.iam.gserviceaccount.com", Role: "roles/bigquery.dataEditor"},
		{Principal: "user:someone@example.com"},
	}}})
	c := &Collector{
		Projects:      []string{"p-two"},
		Timeout:       5 * time.Second,
		Endpoint:      srv.URL,
		retry:         remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
		clientOptions: []option.ClientOption{option.WithoutAuthentication()},
	}
	if err := c.Init(collectors.Env{Source: "gcpiam", Selector: sel, Now: func() time.Time { return now }}); err != nil {
		t.Fatalf("Init: %v", err)
	}
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	a := sink.Artifact("gcpiam://p-other/serviceAccounts/ext@p-other.iam.gserviceaccount.com/keys/k-ext")
	if a == nil {
		t.Fatalf("the plan principal's key was not read; requests %v", f.requests)
	}
	if a.BackfillID != "BF-7001" || a.Correlation != "declared" {
		t.Errorf("id/how = %s/%s; want BF-7001/declared", a.BackfillID, a.Correlation)
	}
	if len(sink.Errors) != 0 {
		t.Errorf("errors: %v", sink.Errors)
	}
}

// A key says whether it ends by itself, as a login role's VALID UNTIL
// does, so BF102 can flag a backfill key made to last forever; and
// whether it can still authenticate, as rolcanlogin does, so a disabled
// key is not reported as a credential still in use.
func TestKeysSayWhetherTimeBoundAndUsable(t *testing.T) {
	f := estate(t)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	for _, tt := range []struct{ uri, want, login string }{
		{"gcpiam://p-one/serviceAccounts/bf-1234-runner@p-one.iam.gserviceaccount.com/keys/k-forever", "false", "true"},
		{"gcpiam://p-other/serviceAccounts/ext@p-other.iam.gserviceaccount.com/keys/k-ext", "true", "true"},
		{"gcpiam://p-one/serviceAccounts/bf-1234-runner@p-one.iam.gserviceaccount.com/keys/k-off", "false", "false"},
		{"gcpiam://p-one/serviceAccounts/old@p-one.iam.gserviceaccount.com/keys/k-acct-off", "true", "false"},
	} {
		a := sink.Artifact(tt.uri)
		if a == nil {
			t.Fatalf("no artifact %s", tt.uri)
		}
		if got := a.Attr(model.AttrTimeBound); got != tt.want {
			t.Errorf("%s: time_bound = %q; want %q", tt.uri, got, tt.want)
		}
		if got := a.Attr(model.AttrLogin); got != tt.login {
			t.Errorf("%s: login = %q; want %q", tt.uri, got, tt.login)
		}
	}
}
