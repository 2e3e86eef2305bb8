package awsiam

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

func findingsOf(r *model.Report) map[string][]model.Finding {
	out := map[string][]model.Finding{}
	for _, f := range r.Findings {
		out[f.ArtifactURI] = append(out[f.ArtifactURI], f)
	}
	return out
}

func rulesOf(fs []model.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.RuleID+"/"+f.Severity.String())
	}
	sort.Strings(ids)
	return strings.Join(ids, " ")
}

// What a careful reviewer expects of BF-1234, verified two months ago:
// every grant still attached lingers (BF003), the one whose condition
// ended on 1 October saying so; those with no end also say they are not
// time-bound (BF102, folded into BF003); the active key is still valid
// (BF004) and says it was used after the backfill; the deactivated key
// is only missing from the plan (BF014).
func TestAuditFindsWhatLingers(t *testing.T) {
	fake := newFakeAWS(t, bf1234(callerAccount))
	c := collectorOn(t, fake.URL, "aws-iam", auditNow, nil)
	r := collectortest.Audit(t, []collectors.Instance{{Name: "aws-iam", Type: "awsiam", Collector: c},
		fixtest.PlanSource(t, "BF-1234", false)}, auditNow)
	got := findingsOf(r)
	uri := func(kind, name, rest string) string { return PrincipalURI("aws-iam", callerAccount, kind, name) + rest }
	for _, tt := range []struct{ uri, want string }{
		{uri(kindRole, "bf-1234-replay", "/policy/arn:aws:iam::aws:policy%2FAmazonS3FullAccess"), "BF003/high"},
		{uri(kindRole, "bf-1234-replay", "/policy/arn:aws:iam::111111111111:policy%2Fbf-1234-write"), "BF003/high"},
		{uri(kindRole, "bf-1234-replay", "/inline/replay-extra"), "BF003/high"},
		{uri(kindRole, "replayer", "/policy/arn:aws:iam::111111111111:policy%2Fdata%2Fshared-read"), "BF003/high"},
		{uri(kindRole, "etl-prod", "/inline/prod-access/statement/BF1234"), "BF003/high"},
		{uri(kindGroup, "bf-1234-writers", "/inline/write"), "BF003/high"},
		{uri(kindUser, "bf-1234-runner", "/key/"+activeKey), "BF004/high"},
		{uri(kindUser, "bf-1234-runner", "/key/"+inactiveKey), "BF014/low"},
	} {
		if g := rulesOf(got[tt.uri]); g != tt.want {
			t.Errorf("%s: findings %q, want %q", tt.uri, g, tt.want)
		}
	}
	for _, f := range got[uri(kindRole, "bf-1234-replay", "/policy/arn:aws:iam::111111111111:policy%2Fbf-1234-write")] {
		if f.RuleID == "BF003" && !strings.Contains(f.Message, "its expiry 2026-10-01 00:00 UTC has passed but the grant is still there") {
			t.Errorf("BF003 on the expired condition says %q", f.Message)
		}
	}
	for _, f := range got[uri(kindUser, "bf-1234-runner", "/key/"+activeKey)] {
		if ev := fmt.Sprint(f.Evidence); !strings.Contains(ev, "last used 2026-11-20, after") || !strings.Contains(ev, "not time-bound (BF102)") {
			t.Errorf("BF004 on the active key: evidence %q does not say it was used after the backfill and cannot expire", f.Evidence)
		}
	}
	for _, f := range got[uri(kindRole, "bf-1234-replay", "/inline/replay-extra")] {
		if !strings.Contains(fmt.Sprint(f.Evidence), "not time-bound (BF102)") {
			t.Errorf("BF003 on the policy with no end: evidence %q does not say so", f.Evidence)
		}
	}
	for u := range got {
		if strings.Contains(u, "bf16-model") || strings.Contains(u, "alice") || strings.Contains(u, "ProdRead") {
			t.Errorf("a finding on what belongs to no backfill: %s %s", u, rulesOf(got[u]))
		}
	}
	if !r.Summary.Complete {
		t.Errorf("coverage incomplete: %+v", r.Coverage)
	}
}
