package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

var testOwners = model.Owners{
	"team-payments": {GitHub: "alice", Email: "alice@example.com"},
	"Data Eng":      {GitHub: "bob"},
}

// newTestSink points a Sink at the fake, with the fake's clock and sleep.
func newTestSink(t testing.TB, f *fakeGitHub, mutate ...func(*Config)) (*Sink, *bytes.Buffer) {
	t.Helper()
	cfg := Config{Repo: f.owner + "/" + f.repo, BaseURL: f.baseURL(), TokenEnv: "BFAUDIT_TEST_GH_TOKEN"}
	for _, m := range mutate {
		m(&cfg)
	}
	var out bytes.Buffer
	s, err := New(cfg, testOwners,
		WithHTTPClient(f.srv.Client()),
		WithClock(f.clock.Now), WithSleep(f.clock.Sleep), WithOutput(&out),
		WithGetenv(func(k string) string {
			if k == "BFAUDIT_TEST_GH_TOKEN" {
				return testToken
			}
			return ""
		}))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s, &out
}

// estate builds reports the way the audit pipeline will: backfills, their
// findings and the coverage of each source.
type estate struct {
	backfills []model.BackfillReport
	findings  []model.Finding
	coverage  []model.Coverage
}

func newEstate() *estate {
	return &estate{coverage: []model.Coverage{
		{Source: "bq", System: "bigquery", Status: model.CoverageOK},
		{Source: "airflow", System: "airflow", Status: model.CoverageOK},
		{Source: "iam", System: "gcp_iam", Status: model.CoverageOK},
	}}
}

func (e *estate) backfill(id, owner string) *estate {
	e.backfills = append(e.backfills, model.BackfillReport{
		Backfill: &model.Backfill{ID: id, Owner: owner, Purpose: "replay of " + id, JobID: "daily_revenue",
			Status: model.StatusReplayed,
			Range:  model.Interval{Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)}},
		Known:     true,
		Lifecycle: model.Lifecycle{Reached: model.StepVerified, Next: model.StepNormalized},
	})
	return e
}

// finding adds a finding; source "bq" scope "proj-a" unless given.
func (e *estate) finding(bf, rule string, step model.Step, uri string, opts ...func(*model.Finding)) *estate {
	f := model.Finding{
		RuleID: rule, Title: "title of " + rule, Severity: model.SeverityMedium, Step: step,
		BackfillID: bf, ArtifactURI: uri, Message: "message about " + uri,
		Evidence: []string{"evidence one", "evidence two"}, Remediation: "remove " + uri,
		Fingerprint: model.Fingerprint(rule, model.ParseID(bf), uri), Source: "bq", Scope: "proj-a",
	}
	for _, o := range opts {
		o(&f)
	}
	e.findings = append(e.findings, f)
	return e
}

func (e *estate) without(uri string) *estate {
	var keep []model.Finding
	for _, f := range e.findings {
		if f.ArtifactURI != uri {
			keep = append(keep, f)
		}
	}
	e.findings = keep
	return e
}

func (e *estate) report() *model.Report {
	return &model.Report{Version: model.ReportVersion, Tool: "bfaudit",
		Backfills: append([]model.BackfillReport(nil), e.backfills...),
		Findings:  append([]model.Finding(nil), e.findings...),
		Coverage:  append([]model.Coverage(nil), e.coverage...)}
}

func runSync(t testing.TB, s *Sink, e *estate) Result {
	t.Helper()
	res, err := s.Sync(context.Background(), e.report())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return res
}

func uri(i int) string { return fmt.Sprintf("bigquery://proj-a/tmp/bf_%04d_tbl", i) }

func mustRead(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}
