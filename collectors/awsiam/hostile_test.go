package awsiam

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// Each hostile server in the place of the whole of AWS (the caller's
// account is asked of STS first): the source fails within its bounds,
// saying why in the SDK's words, with no credential in any text.
func TestHostileWholeServer(t *testing.T) {
	collectortest.HostileWholeServerSaying(t, collectortest.SaysAWS, func(t *testing.T, url string) collectors.Collector {
		return collectorOn(t, url, "aws-iam", auditNow, nil)
	})
}

// Each hostile server behind one account's IAM, reached through its
// assumed role: that account fails, saying why; the other is read, and
// no credential, base or assumed, is in what was reported.
func TestHostileAccount(t *testing.T) {
	collectortest.HostileUnitSaying(t, collectortest.SaysAWS, otherAccount,
		func(t *testing.T, url string) collectors.Collector {
			return collectorOn(t, url, "aws-iam", auditNow, listed(callerAccount, otherAccount))
		},
		func(t *testing.T, h http.Handler) string {
			fake := newFakeAWS(t, bf1234(callerAccount), bf1234(otherAccount))
			fake.breakAccount(otherAccount, h)
			return fake.URL
		},
		func(t *testing.T, sink *collectors.TestSink) {
			read := 0
			for _, a := range sink.Artifacts {
				if strings.HasPrefix(a.Scope, callerAccount) {
					read++
				}
			}
			if read != 9 {
				t.Errorf("the account that answered gave %d artifacts, want 9", read)
			}
			for _, e := range sink.Errors {
				for _, s := range []string{assumedSecret, assumedToken, "Signature="} {
					if strings.Contains(e.Error, s) {
						t.Errorf("%q leaked: %s", s, e.Error)
					}
				}
			}
		})
}
