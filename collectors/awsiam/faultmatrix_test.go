package awsiam

import (
	"net/http"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// bf7001 is an account holding the matrix's backfill's access: a role
// with a policy and no end, and a user's active key.
func bf7001(account string) *fakeIAM {
	return &fakeIAM{account: account, principals: []*fakePrincipal{
		{kind: kindRole, name: "bf-7001-replay", attached: []string{s3FullAccess}},
		{kind: kindUser, name: "bf-7001-runner", keys: []*fakeKey{{id: "AKIAFAKE7001" + account[:6], status: "Active", created: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}}},
	}}
}

// Each account of an organization is a unit: down, failing, hanging,
// answering what IAM never answers, or its role refused, it ticks,
// closes and resolves nothing of what it held, while the other is read.
// A user whose keys cannot be listed is a unit below its account.
func TestFaultMatrix(t *testing.T) {
	unit := func(kind, scope string, breakIt func(f *fakeAWS)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := newFakeAWS(t, bf7001(callerAccount), bf7001(otherAccount))
			c := collectorOn(t, f.URL, "awsiam", faultmatrix.Now, func(s *awsconf.Settings) {
				s.Organization = &awsconf.Organization{Role: testRole}
			})
			return c, func() { breakIt(f) }
		}}
	}
	answer := func(status int, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/xml")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		})
	}
	var units []faultmatrix.Unit
	for _, acct := range []string{callerAccount, otherAccount} {
		units = append(units,
			unit("account down", acct, func(f *fakeAWS) { f.breakAccount(acct, hangUp) }),
			unit("account 500", acct, func(f *fakeAWS) {
				f.breakAccount(acct, answer(500, `<ErrorResponse><Error><Type>Receiver</Type><Code>ServiceFailure</Code><Message>failure</Message></Error></ErrorResponse>`))
			}),
			unit("account stalled", acct, func(f *fakeAWS) { f.breakAccount(acct, hostile.Stall()) }),
			unit("account not IAM's answer", acct, func(f *fakeAWS) { f.breakAccount(acct, answer(200, `<html><body>captive portal</body></html>`)) }),
			unit("account role refused", acct, func(f *fakeAWS) { f.refuse(acct) }),
			unit("user keys", usersScope(acct, "bf-7001-runner"), func(f *fakeAWS) {
				f.breakAccount(acct, onlyKeys(f, acct, answer(403, `<ErrorResponse><Error><Code>AccessDenied</Code><Message>no</Message></Error></ErrorResponse>`)))
			}),
		)
	}
	faultmatrix.Run(t, "awsiam", units)
}
