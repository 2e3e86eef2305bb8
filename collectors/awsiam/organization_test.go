package awsiam

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

func organization(s *awsconf.Settings) { s.Organization = &awsconf.Organization{Role: testRole} }

// internal/awsconf's organisation path, as the collector runs it: the
// accounts come from Organizations' ListAccounts (the suspended one left
// out), each is read through its role; when one role is refused, that
// account's unit fails naming the role and STS's refusal, the other is
// read as before, and the source answers.
func TestAnOrganization(t *testing.T) {
	fake := newFakeAWS(t, bf1234(callerAccount), bf1234(otherAccount))
	c := collectorOn(t, fake.URL, "aws-iam", auditNow, organization)
	sink, err := collectortest.Collect(t, c)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect = %v, errors %+v", err, sink.Errors)
	}
	perAccount := func(sink *collectors.TestSink) map[string]int {
		n := map[string]int{}
		for _, a := range sink.Artifacts {
			n[strings.Split(a.Scope, "/")[0]]++
		}
		return n
	}
	if n := perAccount(sink); n[callerAccount] != 9 || n[otherAccount] != 9 || len(n) != 2 {
		t.Fatalf("artifacts per account %v, want BF-1234's 9 in each of the two active accounts", n)
	}
	if calls := strings.Join(fake.shared.Calls(), ","); calls != "ListAccounts,AssumeRole,AssumeRole" {
		t.Errorf("STS and Organizations calls %s", calls)
	}

	fake.refuse(otherAccount)
	sink, err = collectortest.Collect(t, c)
	if err != nil {
		t.Fatalf("the source failed with one of its accounts: %v", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != otherAccount {
		t.Fatalf("errors %+v, want one, at account %s", sink.Errors, otherAccount)
	}
	for _, want := range []string{"account " + otherAccount, "through role " + roleARN(otherAccount), "STS AssumeRole: AccessDenied", "HTTP 403"} {
		if !strings.Contains(sink.Errors[0].Error, want) {
			t.Errorf("the refused account's error %q does not say %q", sink.Errors[0].Error, want)
		}
	}
	if n := perAccount(sink); n[callerAccount] != 9 || n[otherAccount] != 0 {
		t.Errorf("artifacts per account %v, want the first read as before and nothing of the refused", n)
	}
	cov := model.Coverage{Source: "aws-iam", Status: model.CoverageDegraded, Errors: sink.Errors}
	if cov.Answered(otherAccount) || cov.Answered(usersScope(otherAccount, "bf-1234-runner")) || !cov.Answered(callerAccount) {
		t.Errorf("coverage: the refused account's objects could be taken as gone")
	}

	c.Organization.Exclude = []string{otherAccount}
	if units, err := c.Units(context.Background()); err != nil || !slices.Equal(units, []string{callerAccount}) {
		t.Errorf("with %s excluded, units %v (%v)", otherAccount, units, err)
	}
}

// No credential, the base one or an assumed role's, reaches any text the
// audit writes: errors (one account echoing the request's headers, one
// refusing its role), the coverage, the report, the fix script.
func TestNoCredentialInAnyOutput(t *testing.T) {
	fake := newFakeAWS(t, bf1234(callerAccount), bf1234(otherAccount), bf1234("333333333333"))
	fake.breakAccount(otherAccount, hostile.EchoHeaders(502))
	fake.refuse("333333333333")
	c := collectorOn(t, fake.URL, "aws-iam", fixtest.Now, organization)
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, errs := audit.Run(context.Background(), context.Background(), audit.Plan{Instances: []collectors.Instance{
		{Name: "aws-iam", Type: "awsiam", Collector: c}, fixtest.PlanSource(t, "BF-1234", true)},
		Selector: correlate.MustSelector(), Engine: eng, Now: fixtest.Now})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	report, _ := json.Marshal(a.Report)
	p, err := fix.NewPlan(fix.InputsOf(a), "", func(remedy.Action) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var script bytes.Buffer
	if err := fix.WriteScript(&script, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(script.String(), "aws iam update-access-key") || !strings.Contains(string(report), "HTTP 502") ||
		!strings.Contains(string(report), "STS AssumeRole") {
		t.Fatalf("the audit did not read what the test needs: report %s", report)
	}
	for _, secret := range []string{canarySecret, canaryToken, assumedSecret, assumedToken, "Signature="} {
		for name, text := range map[string]string{"report": string(report), "fix script": script.String()} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s holds %q", name, secret)
			}
		}
	}
}
