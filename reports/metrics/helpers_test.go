package metrics

import (
	"bytes"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	commonmodel "github.com/prometheus/common/model"

	"github.com/bfaudit/bfaudit/model"
)

var now = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// report is a small audit: two open critical findings of one rule and
// owner (one overdue), a high one, a waived one, and three sources, one
// of each coverage state.
func report() *model.Report {
	return &model.Report{
		Now: now,
		Findings: []model.Finding{
			{RuleID: "BF005", Severity: model.SeverityCritical, Owner: "alice@example.com", Overdue: true},
			{RuleID: "BF005", Severity: model.SeverityCritical, Owner: "alice@example.com"},
			{RuleID: "BF005", Severity: model.SeverityCritical, Owner: "alice@example.com", Overdue: true},
			{RuleID: "BF001", Severity: model.SeverityHigh},
			{RuleID: "BF001", Severity: model.SeverityHigh, Owner: "bob", Waiver: &model.Waiver{Reason: "baseline"}},
		},
		Coverage: []model.Coverage{
			{Source: "warehouse", System: "bigquery", Status: model.CoverageOK},
			{Source: "airflow", System: "airflow", Status: model.CoverageDegraded, Errors: []model.ScopeError{{Scope: "dag_a", Error: "timeout"}}},
			{Source: "buckets", System: "gcs", Status: model.CoverageFailed, Error: "403"},
		},
	}
}

// parse reads text back with the official parser, as Prometheus and the
// Pushgateway do; a text they would refuse fails the test.
func parse(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(commonmodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("the text does not parse: %v\n%s", err, text)
	}
	return fams
}

func labelMap(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
