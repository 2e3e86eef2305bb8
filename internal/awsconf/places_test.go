package awsconf

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Every account is read in every region, each place in its own region
// with its account's credentials, and named with its role in errors.
func TestPlacesPairAccountsWithRegions(t *testing.T) {
	cfg := testConfig(t, "http://127.0.0.1:1")
	targets, err := Accounts(context.Background(), cfg, Settings{Regions: []string{"eu-west-1"},
		Accounts: []Account{{ID: "111111111111", Role: "bfaudit-read"}, {ID: "222222222222"}}}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	places := Places(targets, []string{"eu-west-1", "us-east-1"})
	var got []string
	for _, p := range places {
		got = append(got, p.String()+" @"+p.Config().Region)
	}
	want := []string{
		"account 111111111111 in eu-west-1 (role arn:aws:iam::111111111111:role/bfaudit-read) @eu-west-1",
		"account 111111111111 in us-east-1 (role arn:aws:iam::111111111111:role/bfaudit-read) @us-east-1",
		"account 222222222222 in eu-west-1 @eu-west-1",
		"account 222222222222 in us-east-1 @us-east-1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("places:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if places[0].Config().Credentials == cfg.Credentials || places[2].Config().Credentials != cfg.Credentials {
		t.Error("the first account is reached through its role, the second with the caller's credentials")
	}
}

// The caller's identity is asked once for the units and the fix actions
// together, and again by Resolve (a run's Units); an account the source
// does not read is refused by name.
func TestResolverAsksOnce(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "text/xml")
		_, _ = w.Write([]byte(`<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>` +
			`<Arn>arn:aws:iam::333333333333:user/audit</Arn><UserId>AIDA</UserId><Account>333333333333</Account>` +
			`</GetCallerIdentityResult><ResponseMetadata><RequestId>r1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`))
	}))
	defer srv.Close()
	s := Settings{Regions: []string{"eu-west-1"}, Timeout: 5 * time.Second}
	cfg := testConfig(t, srv.URL)
	var r Resolver
	if _, err := r.Targets(context.Background(), cfg, s); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Targets(context.Background(), cfg, s); err != nil {
		t.Fatal(err)
	}
	p, err := r.Place(context.Background(), cfg, s, "333333333333", "us-east-1")
	if err != nil || p.Account != "333333333333" || p.Region != "us-east-1" {
		t.Fatalf("Place = %+v, %v", p, err)
	}
	if _, err := r.Place(context.Background(), cfg, s, "444444444444", "us-east-1"); err == nil || !strings.Contains(err.Error(), "444444444444 is not one this source reads (333333333333)") {
		t.Errorf("another account: %v, want it refused naming the account read", err)
	}
	if tg, err := r.Target(context.Background(), cfg, s, "333333333333"); err != nil || tg.Account != "333333333333" {
		t.Errorf("Target = %+v, %v", tg, err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d GetCallerIdentity calls, want 1", n)
	}
	if _, err := r.Resolve(context.Background(), cfg, s); err != nil || calls.Load() != 2 {
		t.Errorf("Resolve asks again: %v, %d calls", err, calls.Load())
	}
}
