package awsiam

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// awsSays is what each of collectortest's hostile servers makes an AWS
// call say, through the SDK and awsconf: a call out of time says "no
// answer within" its timeout, an error page its status, and an answer
// over the cap that it is larger (awsQuery calls are POSTs: no "GET").
var awsSays = map[string]string{
	"accepts and stalls (TCP)": "no answer within",
	"stall":                    "no answer within",
	"drip":                     "no answer within",
	"503 Retry-After 3600":     "HTTP 503",
	"header-echoing 502":       "HTTP 502",
	"50 MB answer":             "",
	"answer over the cap":      "larger than",
}

// secretsIn fails the test if a credential, base or assumed, or the
// hostile server's page is in text.
func secretsIn(t *testing.T, text string) {
	t.Helper()
	for _, s := range []string{canarySecret, canaryToken, assumedSecret, assumedToken, "Signature=", "<html"} {
		if strings.Contains(text, s) {
			t.Errorf("%q leaked: %s", s, text)
		}
	}
}

// Each hostile server in the place of the whole of AWS (the caller's
// account is asked of STS first): the source fails within its bounds,
// saying why, with no credential in any text.
func TestHostileWholeServer(t *testing.T) {
	cases := append([]collectortest.HostileCase{{Name: "accepts and stalls (TCP)"}}, collectortest.HostileCases...)
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			url := ""
			if tt.Handler == nil {
				url = "http://" + hostile.AcceptAndStall(t)
			} else {
				url = hostile.Server(t, tt.Handler()).URL
			}
			want, ok := awsSays[tt.Name]
			if !ok {
				t.Fatalf("no AWS wording for the hostile case %q: add it to awsSays", tt.Name)
			}
			sink, err := collectortest.Collect(t, collectorOn(t, url, "aws-iam", auditNow, nil))
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "GetCallerIdentity") {
				t.Fatalf("Collect = %v, want the source failed at STS GetCallerIdentity saying %q", err, want)
			}
			out, _ := json.Marshal(sink)
			secretsIn(t, err.Error()+string(out))
		})
	}
}

// Each hostile server behind one account's IAM, through its assumed
// role: that account fails, saying why; the other is read.
func TestHostileAccount(t *testing.T) {
	for _, tt := range collectortest.HostileCases {
		t.Run(tt.Name, func(t *testing.T) {
			fake := newFakeAWS(t, bf1234(callerAccount), bf1234(otherAccount))
			fake.breakAccount(otherAccount, tt.Handler())
			c := collectorOn(t, fake.URL, "aws-iam", auditNow, listed(callerAccount, otherAccount))
			sink := collectortest.CollectBroken(t, c, otherAccount, awsSays[tt.Name])
			read := 0
			for _, a := range sink.Artifacts {
				if strings.HasPrefix(a.Scope, callerAccount) {
					read++
				}
			}
			if read != 9 {
				t.Errorf("the account that answered gave %d artifacts, want 9", read)
			}
			out, _ := json.Marshal(sink)
			secretsIn(t, string(out))
		})
	}
}
