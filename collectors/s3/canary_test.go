package s3

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// The canary credentials (the caller's secret key and session token, and
// those an assumed role is given) appear in no error, coverage, report,
// fix script, fix plan or fix result, even where a proxy echoes every
// request header (the session token travels in one) and a role is refused.
func TestNoCredentialInAnyOutput(t *testing.T) {
	f, _ := fixFixture(t)
	for _, b := range []string{"echo-base", "echo-assumed", "refused"} {
		f.bucket(t, b)
	}
	// The listings echo (an answer to HEAD would carry no body to echo
	// in), and note which session token they were sent.
	var mu sync.Mutex
	echoed := map[string]bool{}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		echoed[r.Header.Get("X-Amz-Security-Token")] = true
		mu.Unlock()
		hostile.EchoHeaders(http.StatusBadGateway).ServeHTTP(w, r)
	})
	f.Break("echo-base", "tmp/", echo)
	f.Break("echo-assumed", "tmp/", echo)
	f.Refuse("arn:aws:iam::333333333333:role/bfaudit-read")
	c := newOn(t, f.http.URL, awsconf.Settings{Accounts: []awsconf.Account{
		{ID: "111111111111"}, {ID: "222222222222", Role: "bfaudit-read"}, {ID: "333333333333", Role: "bfaudit-read"}}},
		Bucket{Name: "scratch", Prefixes: []string{"tmp/", "checkpoints/"}, Account: "111111111111"},
		Bucket{Name: "echo-base", Prefixes: []string{"tmp/"}, Account: "111111111111"},
		Bucket{Name: "echo-assumed", Prefixes: []string{"tmp/"}, Account: "222222222222"},
		Bucket{Name: "refused", Prefixes: []string{"tmp/"}, Account: "333333333333"})
	c.env.Source, c.source = "st", "st"
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, errs := audit.Run(context.Background(), context.Background(), audit.Plan{Selector: c.env.Selector, Engine: eng, Now: fixtest.Now,
		Instances: []collectors.Instance{fixtest.PlanSource(t, "BF-1234", true), {Name: "st", Type: "s3", Collector: c}}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var outputs []string
	report, _ := json.Marshal(a.Report)
	outputs = append(outputs, string(report))
	coverage := ""
	for _, cov := range a.Report.Coverage {
		for _, e := range cov.Errors {
			coverage += e.Scope + ": " + e.Error + "\n"
		}
	}
	for _, want := range []string{
		"111111111111/echo-base/tmp%2F: list s3://echo-base/tmp/: S3 ListObjectsV2: an answer that is not AWS's (the SDK could not read it) (HTTP 502)",
		"222222222222/echo-assumed/tmp%2F: list s3://echo-assumed/tmp/: S3 ListObjectsV2: an answer that is not AWS's (the SDK could not read it) (HTTP 502)",
		"333333333333/refused: read bucket refused (account 333333333333 through role arn:aws:iam::333333333333:role/bfaudit-read): STS AssumeRole: AccessDenied",
	} {
		if !strings.Contains(coverage, want) {
			t.Errorf("coverage errors lack %q:\n%s", want, coverage)
		}
	}
	if !echoed[canaryToken] || !echoed[assumedToken] {
		t.Fatalf("the echoing proxy was sent the session tokens %v: the case proves nothing", echoed)
	}
	if !fixtest.Open(fix.InputsOf(a), "BF-1234")["BF005 s3://st/111111111111/eu-west-1/scratch/tmp/bf_1234/"] {
		t.Fatalf("the healthy bucket drew no finding: %s", coverage)
	}

	p, err := fix.NewPlan(fix.InputsOf(a), "BF-1234", func(remedy.Action) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var script, plan bytes.Buffer
	if err := fix.WriteScript(&script, p); err != nil {
		t.Fatal(err)
	}
	if err := fix.WriteJSON(&plan, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(script.String(), "aws s3 rm --recursive --region=eu-west-1 --endpoint-url=") {
		t.Errorf("the script holds no aws s3 rm:\n%s", script.String())
	}
	outputs = append(outputs, script.String(), plan.String())

	// The fix meets the header-echoing proxy too.
	f.Break("scratch", "", hostile.EchoHeaders(http.StatusBadGateway))
	ap := &fix.Applier{Systems: map[string]remedy.Actor{"st": actor{c}}, Allowed: func(string) bool { return true },
		Store: fixtest.OpenStore(t), Actor: "test", Now: c.env.Now}
	results, _ := json.Marshal(ap.Apply(context.Background(), p))
	if !strings.Contains(string(results), "HTTP 502") {
		t.Errorf("the fix did not meet the proxy: %s", results)
	}
	outputs = append(outputs, string(results))
	for _, out := range outputs {
		for _, secret := range append(canaries, "Signature=", "<html") {
			if strings.Contains(out, secret) {
				t.Errorf("an output holds %q: %.300s", secret, out[max(0, strings.Index(out, secret)-150):])
			}
		}
	}
}
