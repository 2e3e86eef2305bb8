package awsiam

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

func byURI(sink *collectors.TestSink) map[string]model.Artifact {
	out := map[string]model.Artifact{}
	for _, a := range sink.Artifacts {
		out[a.URI] = a
	}
	return out
}

// One account read from a listing of three pages: the policies of
// principals tied by name, path and tag, the statement written for
// BF-1234 into a production role's policy, the runner's keys; nothing of
// bf16-model, alice, or the production role's own access.
func TestCollectsAnAccount(t *testing.T) {
	acct := bf1234(callerAccount)
	acct.pageSize = 4
	fake := newFakeAWS(t, acct)
	c := collectorOn(t, fake.URL, "aws-iam", auditNow, nil)
	sink, err := collectortest.Collect(t, c)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect = %v, errors %+v", err, sink.Errors)
	}
	uri := func(kind, name string, rest ...string) string {
		u := PrincipalURI("aws-iam", callerAccount, kind, name)
		for i := 0; i+1 < len(rest); i += 2 {
			u += "/" + rest[i] + "/" + strings.ReplaceAll(rest[i+1], "/", "%2F")
		}
		return u
	}
	write := "arn:aws:iam::111111111111:policy/bf-1234-write"
	shared := "arn:aws:iam::111111111111:policy/data/shared-read"
	type want struct {
		kind         model.Kind
		how, policy  string
		expires      string // "" for none
		timeBound    string
		state        model.State
		login        string
		lastUsed     string
		principalARN string
	}
	role := "arn:aws:iam::111111111111:role/bf-1234-replay"
	wants := map[string]want{
		uri(kindRole, "bf-1234-replay", "policy", s3FullAccess):   {model.KindGrant, "name", policyAWSManaged, "", "false", model.StateActive, "", "2026-11-20T00:00:00Z", role},
		uri(kindRole, "bf-1234-replay", "policy", write):          {model.KindGrant, "name", policyManaged, "2026-10-01T00:00:00Z", "true", model.StateActive, "", "2026-11-20T00:00:00Z", role},
		uri(kindRole, "bf-1234-replay", "inline", "replay-extra"): {model.KindGrant, "name", policyInline, "", "false", model.StateActive, "", "2026-11-20T00:00:00Z", role},
		uri(kindRole, "replayer", "policy", shared): {model.KindGrant, "name", policyManaged, "2027-01-01T00:00:00Z", "true", model.StateActive, "", "",
			"arn:aws:iam::111111111111:role/backfill/bf-1234/replayer"},
		uri(kindRole, "loader", "policy", shared): {model.KindGrant, "label", policyManaged, "2027-01-01T00:00:00Z", "true", model.StateActive, "", "",
			"arn:aws:iam::111111111111:role/loader"},
		uri(kindRole, "etl-prod", "inline", "prod-access", "statement", "BF1234"): {model.KindGrant, "name", policyStatement, "2026-12-31T00:00:00Z", "true", model.StateActive, "", "",
			"arn:aws:iam::111111111111:role/etl-prod"},
		uri(kindGroup, "bf-1234-writers", "inline", "write"): {model.KindGrant, "name", policyInline, "", "false", model.StateActive, "", "",
			"arn:aws:iam::111111111111:group/bf-1234-writers"},
		uri(kindUser, "bf-1234-runner", "key", activeKey): {model.KindCredential, "name", "", "", "false", model.StateActive, "true", "2026-11-20T08:00:00Z",
			"arn:aws:iam::111111111111:user/bf-1234-runner"},
		uri(kindUser, "bf-1234-runner", "key", inactiveKey): {model.KindCredential, "name", "", "", "false", model.StateDisabled, "false", "",
			"arn:aws:iam::111111111111:user/bf-1234-runner"},
	}
	got := byURI(sink)
	for u, w := range wants {
		a, ok := got[u]
		if !ok {
			t.Errorf("missing %s", u)
			continue
		}
		expires, lastUsed := "", ""
		if !a.ExpiresAt.IsZero() {
			expires = a.ExpiresAt.Format(time.RFC3339)
		}
		if !a.LastUsedAt.IsZero() {
			lastUsed = a.LastUsedAt.Format(time.RFC3339)
		}
		if a.Kind != w.kind || a.BackfillID == "" || a.Correlation != w.how || a.Attr(AttrPolicyType) != w.policy || expires != w.expires ||
			a.Attr(model.AttrTimeBound) != w.timeBound || a.State != w.state || a.Attr(model.AttrLogin) != w.login || lastUsed != w.lastUsed ||
			a.Attr(model.AttrPrincipal) != w.principalARN || a.System != "awsiam" || a.Source != "aws-iam" {
			t.Errorf("%s:\n got %s %s/%s policy %q expires %q time_bound %q %s login %q last used %q principal %q\nwant %+v",
				u, a.Kind, a.BackfillID, a.Correlation, a.Attr(AttrPolicyType), expires, a.Attr(model.AttrTimeBound), a.State,
				a.Attr(model.AttrLogin), lastUsed, a.Attr(model.AttrPrincipal), w)
		}
	}
	for u := range got {
		if _, ok := wants[u]; !ok {
			t.Errorf("unexpected artifact %s", u)
		}
	}
	// Evidence on the role's grants: who outside may assume it, its boundary.
	a := got[uri(kindRole, "bf-1234-replay", "policy", s3FullAccess)]
	if a.Attr(AttrAssumableFrom) != "arn:aws:iam::111111111111:oidc-provider/token.actions.githubusercontent.com,arn:aws:iam::999999999999:root" ||
		a.Attr(AttrBoundary) != "arn:aws:iam::111111111111:policy/boundary" {
		t.Errorf("role evidence: assumable %q, boundary %q", a.Attr(AttrAssumableFrom), a.Attr(AttrBoundary))
	}
	// The statement's removal leaves the production role its own.
	st := got[uri(kindRole, "etl-prod", "inline", "prod-access", "statement", "BF1234")]
	var after struct{ Statement []struct{ Sid string } }
	if err := json.Unmarshal([]byte(st.Attr(AttrPolicyAfter)), &after); err != nil || len(after.Statement) != 1 || after.Statement[0].Sid != "ProdRead" ||
		st.Attr(AttrStatementsLeft) != "1" || st.Attr(AttrSharedWith) != "" {
		t.Errorf("policy after the statement's removal: %s (%d left, shared with %q): %v", st.Attr(AttrPolicyAfter), len(after.Statement), st.Attr(AttrSharedWith), err)
	}
	if n, p := sink.Read(callerAccount, "roles"); n != 5 || p != 0 {
		t.Errorf("roles read %d (%d partial)", n, p)
	}
	if n, _ := sink.Read(usersScope(callerAccount, "bf-1234-runner"), "access keys"); n != 2 {
		t.Errorf("access keys read %d, want the runner's 2", n)
	}
	calls := acct.server.Calls()
	wantCalls := []string{"GetAccountAuthorizationDetails", "GetAccountAuthorizationDetails", "GetAccountAuthorizationDetails",
		"ListAccessKeys", "GetAccessKeyLastUsed", "GetAccessKeyLastUsed"}
	if !slices.Equal(calls, wantCalls) {
		t.Errorf("IAM calls %v, want %v (three pages, then the runner's keys only)", calls, wantCalls)
	}
}
