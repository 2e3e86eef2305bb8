package reports

import (
	"bytes"
	"context"
	_ "github.com/bfaudit/bfaudit/collectors/all" // every system's commands
	"net/url"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// The Markdown and HTML reports carry each item's command; a hostile
// queue name stays inside its code block (Markdown) or is escaped (HTML).
func TestReportsCarryTheCommand(t *testing.T) {
	name := "q```\n@team <script>alert(1)</script> #12"
	r := sampleReport()
	r.Findings = append(r.Findings, model.Finding{RuleID: "BF006", RuleName: "lingering-queue", Severity: model.SeverityMedium,
		BackfillID: "BF-1", ArtifactURI: "rabbitmq://mq/%2F/queue/" + url.PathEscape(name), Message: "queue still there", Fingerprint: "dddd"})
	render := func(format string) string {
		w, err := New(format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := w.Write(context.Background(), &b, r); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	md := render("markdown")
	block := "````sh\nrabbitmqadmin --vhost=/ delete queue 'name=q```\n@team <script>alert(1)</script> #12'\n````"
	if !strings.Contains(md, block) {
		t.Errorf("Markdown lacks the command in a longer fence:\n%s", md)
	}
	if strings.Count(md, "````") != 2 {
		t.Errorf("the fence is not closed once")
	}
	html := render("html")
	if strings.Contains(html, "<script>alert") || !strings.Contains(html, "<pre><code>rabbitmqadmin --vhost=/ delete queue &#39;name=q```\n@team &lt;script&gt;") {
		t.Errorf("HTML command not escaped:\n%s", html)
	}
	// A finding bfaudit has no command for gets none.
	if FixCommands(model.Finding{RuleID: "BF101", Location: &model.Location{Path: "p.yaml"}}) != "" {
		t.Error("a plan finding got a command")
	}
}
