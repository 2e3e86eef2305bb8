package metrics

import (
	"strings"
	"testing"
	"time"
)

// The exact text a small audit gives: what an alert author reads.
func TestTextOfASmallAudit(t *testing.T) {
	text, err := Text(Families(report(), Run{Duration: 1500 * time.Millisecond, Complete: true}))
	if err != nil {
		t.Fatal(err)
	}
	want := `# HELP bfaudit_audit_duration_seconds How long the audit run took, in seconds.
# TYPE bfaudit_audit_duration_seconds gauge
bfaudit_audit_duration_seconds 1.5
# HELP bfaudit_findings Open findings not waived, by severity, rule, owner, owner's team and whether past their due date.
# TYPE bfaudit_findings gauge
bfaudit_findings{severity="critical",rule="BF005",owner="alice@example.com",team="",overdue="false"} 1
bfaudit_findings{severity="critical",rule="BF005",owner="alice@example.com",team="",overdue="true"} 2
bfaudit_findings{severity="high",rule="BF001",owner="",team="",overdue="false"} 1
# HELP bfaudit_last_success_timestamp_seconds When the last complete audit ran (every source answered, every sink delivered), as the audit's time, in Unix seconds.
# TYPE bfaudit_last_success_timestamp_seconds gauge
bfaudit_last_success_timestamp_seconds 1.7960292e+09
# HELP bfaudit_source_up 1 when the source answered for every unit this run, 0 when it failed or answered only in part (degraded).
# TYPE bfaudit_source_up gauge
bfaudit_source_up{source="airflow",system="airflow"} 0
bfaudit_source_up{source="buckets",system="gcs"} 0
bfaudit_source_up{source="warehouse",system="bigquery"} 1
`
	if string(text) != want {
		t.Errorf("text:\n%s\nwant:\n%s", text, want)
	}
	parse(t, text)
}

// An incomplete run says nothing of a last success unless it carries
// one: it must not make a stale-success alert go quiet.
func TestLastSuccessOnlyFromACompleteRun(t *testing.T) {
	fams := parse(t, mustText(t, Run{Complete: false}))
	if _, ok := fams[LastSuccess]; ok {
		t.Errorf("an incomplete run wrote %s", LastSuccess)
	}
	before := now.Add(-6 * time.Hour)
	fams = parse(t, mustText(t, Run{Complete: false, PreviousSuccess: before}))
	if got := fams[LastSuccess].GetMetric()[0].GetGauge().GetValue(); got != float64(before.Unix()) {
		t.Errorf("carried last success = %v, want %v", got, before.Unix())
	}
	fams = parse(t, mustText(t, Run{Complete: true, PreviousSuccess: before}))
	if got := fams[LastSuccess].GetMetric()[0].GetGauge().GetValue(); got != float64(now.Unix()) {
		t.Errorf("complete run's last success = %v, want the audit's time %v", got, now.Unix())
	}
}

func TestTeamLabelFromTheResolver(t *testing.T) {
	run := Run{Complete: true, Team: func(owner string) string {
		if owner == "alice@example.com" {
			return "payments"
		}
		return ""
	}}
	fams := parse(t, mustText(t, run))
	teams := map[string]string{}
	for _, m := range fams[Findings].GetMetric() {
		l := labelMap(m)
		teams[l["owner"]] = l["team"]
	}
	if teams["alice@example.com"] != "payments" || teams[""] != "" {
		t.Errorf("teams by owner = %v", teams)
	}
}

// A report with nothing open still says the run happened and how the
// sources answered; no finding series at all (an alert on > 0 is quiet).
func TestNoFindings(t *testing.T) {
	r := report()
	r.Findings = nil
	text, err := Text(Families(r, Run{Complete: true}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "bfaudit_findings{") {
		t.Errorf("findings series with no finding:\n%s", text)
	}
	fams := parse(t, text)
	if len(fams[SourceUp].GetMetric()) != 3 || fams[LastSuccess] == nil {
		t.Errorf("families = %v", fams)
	}
}

func mustText(t *testing.T, run Run) []byte {
	t.Helper()
	text, err := Text(Families(report(), run))
	if err != nil {
		t.Fatal(err)
	}
	return text
}
