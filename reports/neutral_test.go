package reports

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// The Markdown report is pasted into PR comments and job summaries, where
// GitHub pings @names, links #123 and turns bare URLs into links. Estate
// text must do none of that (issue 13.2): the report's own issue links are
// the only links in it.
func TestNeutralMarkdownReportPingsAndLinksNothing(t *testing.T) {
	evil := "ping @payments-team, see #12 and GH-5, open https://evil.example/x?a=1 or www.evil.example"
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	r := &model.Report{Version: model.ReportVersion, Tool: "bfaudit", Now: now,
		Summary:  model.Summary{Backfills: 2, Findings: 2, BySeverity: map[string]int{"high": 2}, ByOwner: map[string]int{"@owner": 2}},
		Problems: []string{"deadline: " + evil},
		Backfills: []model.BackfillReport{
			{Backfill: &model.Backfill{ID: "BF-@x#1", Owner: "@owner", Notes: []string{evil}, Status: model.StatusReplayed}, Known: true,
				Findings: 1, IssueURL: "https://github.com/acme/data/issues/7",
				Lifecycle: model.Lifecycle{Reached: model.StepVerified, Next: model.StepNormalized, Blockers: []string{evil}}},
			{Backfill: &model.Backfill{ID: "BF-2", Owner: "@owner"}, Known: true, Findings: 1},
		},
		Findings: []model.Finding{
			{RuleID: "BF005", RuleName: "temp-table", Severity: model.SeverityHigh, BackfillID: "BF-@x#1",
				ArtifactURI: "https://evil.example/@team/#9", Message: evil, Remediation: evil, Owner: "@owner", Fingerprint: "a"},
			{RuleID: "BF003", Severity: model.SeverityHigh, BackfillID: "BF-2", ArtifactURI: "bigquery://p/d/t",
				Message: "grant for @dba #3", Remediation: "ask @sre", Owner: "@owner", Fingerprint: "b"},
		},
		Coverage: []model.Coverage{{Source: "bq@team", System: "bigquery", Status: model.CoverageDegraded,
			Error: evil, Errors: []model.ScopeError{{Scope: "#4", Error: evil}}}},
		History: &model.History{PreviousRun: now.AddDate(0, 0, -7),
			Resolved: []model.Finding{{RuleID: "BF005", BackfillID: "@old", ArtifactURI: "www.gone.example", Message: evil}}},
	}
	w, err := New("markdown", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := w.Write(t.Context(), &b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	prose := mdLink.ReplaceAllString(codeSpans.ReplaceAllString(out, ""), "]()")
	if m := liveMention.FindString(prose); m != "" {
		t.Errorf("live mention or reference %q in the Markdown report:\n%s", m, out)
	}
	if m := bareURL.FindString(prose); m != "" {
		t.Errorf("bare URL %q outside a code span would be autolinked:\n%s", m, out)
	}
	for _, l := range mdLink.FindAllStringSubmatch(out, -1) {
		if l[1] != "https://github.com/acme/data/issues/7" {
			t.Errorf("link to %q in the Markdown report; only issue links are ours", l[1])
		}
	}
	// Still readable and copyable: the URL is whole, in a code span.

	for _, want := range []string{"`https://evil.example/x?a=1`", "`www.evil.example`", "`https://evil.example/@team/#9`", "[BF-@\u200dx#\u200d1](https://github.com/acme/data/issues/7)"} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown report lacks %q:\n%s", want, out)
		}
	}
}

var (
	codeSpans   = regexp.MustCompile("`+[^`]*`+")
	liveMention = regexp.MustCompile(`(^|[^\w])@[A-Za-z0-9]|#[0-9]|\bGH-[0-9]`)
	bareURL     = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://|\bwww\.`)
	mdLink      = regexp.MustCompile(`(?:^|[^\\])\]\(([^)]*)\)`) // not an escaped \]
)
