package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

func sampleReport() *model.Report {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	evil := `<script>alert(1)</script>|*boom*`
	r := &model.Report{
		Version: model.ReportVersion, Tool: "bfaudit", Now: now,
		Summary: model.Summary{Backfills: 1, Artifacts: 2, Findings: 2, Waived: 1,
			BySeverity: map[string]int{"high": 1, "medium": 1}, ByOwner: map[string]int{"alice": 2}, Complete: false},
		Backfills: []model.BackfillReport{{Backfill: &model.Backfill{ID: "BF-1", Status: model.StatusReplayed, Owner: "alice"},
			Known: true, Findings: 2, Lifecycle: model.Lifecycle{Reached: model.StepVerified, Next: model.StepNormalized, Blockers: []string{"BF007 alert " + evil}}}},
		Findings: []model.Finding{
			{RuleID: "BF003", RuleName: "lingering-elevated-grant", Severity: model.SeverityHigh, BackfillID: "BF-1",
				ArtifactURI: "gcpiam://p/roles/x/" + evil, Message: "grant " + evil + " still in force", Owner: "alice", Fingerprint: "aaaa"},
			{RuleID: "BF101", RuleName: "plan-missing-cleanup", Severity: model.SeverityMedium, BackfillID: "BF-1",
				Message: "plan has no expiry", Location: &model.Location{Path: "plans/bf-1.yaml", Line: 4}, Fingerprint: "bbbb"},
			{RuleID: "BF002", Severity: model.SeverityLow, BackfillID: "BF-1", Message: "waived one", Fingerprint: "cccc",
				Waiver: &model.Waiver{Reason: "kept as runbook", Approver: "carol"}},
		},
		Coverage: []model.Coverage{{Source: "bq", System: "bigquery", Status: model.CoverageDegraded, Errors: []model.ScopeError{{Scope: "proj-a", Error: "403 forbidden"}}}},
	}
	return r
}

func render(t *testing.T, format string) string {
	t.Helper()
	w, err := New(format, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := w.Write(context.Background(), &b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHTMLEscapesEstateText(t *testing.T) {
	out := render(t, "html")
	// The report's one script is its own (the table's sorting and filters).
	if strings.Contains(out, "<script>alert") || strings.Count(out, "<script>") != 1 {
		t.Error("estate text reached the HTML unescaped")
	}
	for _, want := range []string{"&lt;script&gt;", "<svg", "Incomplete audit", "proj-a", "Waived: kept as runbook"} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestMarkdownEscapesTableBreakers(t *testing.T) {
	out := render(t, "markdown")
	if strings.Contains(out, "<script>") || strings.Contains(out, "|*boom*") {
		t.Errorf("markdown not escaped:\n%s", out)
	}
	for _, want := range []string{`\|\*boom\*`, "Incomplete audit", "plans/bf-1.yaml:4", "waived (low)"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestTableShowsIncompleteAndLifecycle(t *testing.T) {
	out := render(t, "table")
	for _, want := range []string{"INCOMPLETE", "403 forbidden", "1/5 verified", "high BF003: grant", "(+1 more)", "waived", "plans/bf-1.yaml:4"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour codes without a terminal")
	}
}

func TestSARIF(t *testing.T) {
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string } `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation *struct {
						ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
						Region           struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Suppressions        []any             `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(render(t, "sarif")), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if log.Version != "2.1.0" || len(run.Tool.Driver.Rules) < 9 || len(run.Results) != 3 {
		t.Fatalf("sarif shape: version %s, %d rules, %d results", log.Version, len(run.Tool.Driver.Rules), len(run.Results))
	}
	plan := run.Results[1]
	if plan.Level != "warning" || plan.Locations[0].PhysicalLocation.ArtifactLocation.URI != "plans/bf-1.yaml" || plan.Locations[0].PhysicalLocation.Region.StartLine != 4 {
		t.Errorf("plan finding location: %+v", plan)
	}
	if run.Results[0].Level != "error" || run.Results[0].PartialFingerprints["bfaudit/v1"] != "aaaa" {
		t.Errorf("grant finding: %+v", run.Results[0])
	}
	if len(run.Results[2].Suppressions) != 1 {
		t.Error("waived finding should be suppressed")
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := New("pdf", Options{}); err == nil {
		t.Error("want an error")
	}
}

func TestAgesShownWithHistory(t *testing.T) {
	r := sampleReport()
	r.History = &model.History{PreviousRun: r.Now.AddDate(0, 0, -7),
		Resolved: []model.Finding{{RuleID: "BF005", BackfillID: "BF-1", ArtifactURI: "bq://t", Message: "temp table gone"}}}
	r.Findings[0].FirstSeen = r.Now.AddDate(0, 0, -12)
	for _, format := range []string{"table", "markdown", "html"} {
		w, _ := New(format, Options{})
		var b bytes.Buffer
		if err := w.Write(context.Background(), &b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "12d") {
			t.Errorf("%s: no age for a finding first seen 12 days ago", format)
		}
		if format != "table" && !strings.Contains(b.String(), "temp table gone") {
			t.Errorf("%s: resolved findings not listed", format)
		}
	}
}

// A source's notes show in the Markdown and HTML reports, neutralised
// like any estate text.
func TestNotesShown(t *testing.T) {
	r := sampleReport()
	r.Coverage = append(r.Coverage, model.Coverage{Source: "rules", System: "prometheus", Status: model.CoverageOK,
		Notes: []string{"cluster @platform does not serve monitoring.coreos.com/v1 (no PrometheusRule CRD) <b>"}})
	for _, format := range []string{"markdown", "html"} {
		w, err := New(format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := w.Write(context.Background(), &b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "Note from") || !strings.Contains(out, "no PrometheusRule CRD") {
			t.Errorf("%s report lacks the note:\n%s", format, out)
		}
		if strings.Contains(out, "<b>") || (format == "markdown" && strings.Contains(out, " @platform")) {
			t.Errorf("%s report shows the note's text raw:\n%s", format, out)
		}
	}
}

// A source that failed records its error as its own and as its
// whole-source entry; every report says it once.
func TestFailedSourceErrorSaidOnce(t *testing.T) {
	const why = "list silences: connection refused"
	for _, format := range []string{"table", "markdown", "html"} {
		r := sampleReport()
		r.Coverage = []model.Coverage{{Source: "am", System: "alertmanager", Status: model.CoverageFailed, Error: why,
			Errors: []model.ScopeError{{Error: why}, {Scope: "silences", Error: "one unit alone failed"}}}}
		out := renderReport(t, format, r)
		if n := strings.Count(out, why); n != 1 {
			t.Errorf("%s: the failed source's error appears %d times, want once:\n%s", format, n, out)
		}
		if !strings.Contains(out, "one unit alone failed") {
			t.Errorf("%s: a unit's own error is not listed:\n%s", format, out)
		}
	}
}
