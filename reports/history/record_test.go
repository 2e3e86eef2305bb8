package history

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

var (
	grant = finding("BF003", "BF-1", "gcp://p/iam/grant-1", "gcp", "proj-a", model.SeverityHigh)
	table = finding("BF005", "BF-1", "bigquery://p/ds/tmp_1", "bq", "proj-a", model.SeverityMedium)
	queue = finding("BF006", "BF-2", "rabbitmq://vh/q1", "rabbit", "vh", model.SeverityMedium)
)

func TestRecordKeepsFirstSeenAcrossRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		cov := okCoverage("gcp", "bq")

		r1 := record(t, s, report(day(0), cov, grant))
		if !r1.History.PreviousRun.IsZero() {
			t.Errorf("first run: PreviousRun = %s, want none", r1.History.PreviousRun)
		}
		if !slices.Equal(r1.History.New, []string{grant.Fingerprint}) {
			t.Errorf("first run: New = %v, want the grant", r1.History.New)
		}

		r2 := record(t, s, report(day(7), cov, grant, table))
		g := r2.Findings[0]
		if !g.FirstSeen.Equal(day(0)) || !g.LastSeen.Equal(day(7)) {
			t.Errorf("grant first/last seen = %s/%s, want %s/%s", g.FirstSeen, g.LastSeen, day(0), day(7))
		}
		if !r2.Findings[1].FirstSeen.Equal(day(7)) {
			t.Errorf("table first seen = %s, want %s", r2.Findings[1].FirstSeen, day(7))
		}
		if !slices.Equal(r2.History.New, []string{table.Fingerprint}) {
			t.Errorf("second run: New = %v, want only the table", r2.History.New)
		}
		if !r2.History.PreviousRun.Equal(day(0)) {
			t.Errorf("PreviousRun = %s, want %s", r2.History.PreviousRun, day(0))
		}
		if len(r2.History.Resolved) != 0 {
			t.Errorf("Resolved = %v, want none", fingerprints(r2.History.Resolved))
		}
		tr := r2.History.Trend
		if len(tr) != 2 || !tr[0].At.Equal(day(0)) || tr[0].Findings != 1 || tr[1].Findings != 2 || tr[1].BySeverity["medium"] != 1 {
			t.Errorf("Trend = %+v, want day0:1 then day7:2 (1 medium)", tr)
		}
	})
}

func TestRecordResolvesAndReopens(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		cov := okCoverage("gcp", "bq")
		record(t, s, report(day(0), cov, grant, table))

		r2 := record(t, s, report(day(1), cov, table))
		if got := fingerprints(r2.History.Resolved); !slices.Equal(got, []string{grant.Fingerprint}) {
			t.Fatalf("Resolved = %v, want the grant", got)
		}
		res := r2.History.Resolved[0]
		if res.RuleID != "BF003" || !res.FirstSeen.Equal(day(0)) || !res.LastSeen.Equal(day(0)) {
			t.Errorf("resolved finding = %s first %s last %s, want BF003 seen only on day 0", res.RuleID, res.FirstSeen, res.LastSeen)
		}
		ch, err := s.ChangesSince(context.Background(), day(0), day(1))
		if err != nil {
			t.Fatal(err)
		}
		if len(ch.Resolved) != 1 || len(ch.New) != 0 {
			t.Errorf("ChangesSince(day0, day1) = %d new, %d resolved; want 0 and 1", len(ch.New), len(ch.Resolved))
		}

		r3 := record(t, s, report(day(2), cov, grant, table))
		if !slices.Contains(r3.History.New, grant.Fingerprint) {
			t.Errorf("a finding that came back is new since the previous run; New = %v", r3.History.New)
		}
		if !r3.Findings[0].FirstSeen.Equal(day(0)) {
			t.Errorf("reopened finding first seen = %s, want its original %s", r3.Findings[0].FirstSeen, day(0))
		}
		ch, err = s.ChangesSince(context.Background(), day(1), day(2))
		if err != nil {
			t.Fatal(err)
		}
		if got := fingerprints(ch.New); !slices.Equal(got, []string{grant.Fingerprint}) {
			t.Errorf("ChangesSince(day1, day2).New = %v, want the reopened grant", got)
		}
	})
}

func TestRecordDoesNotResolveWhatASourceDidNotAnswer(t *testing.T) {
	cases := []struct {
		name     string
		coverage []model.Coverage
		resolved bool
	}{
		{"source failed", []model.Coverage{{Source: "gcp", Status: model.CoverageFailed, Error: "403"}}, false},
		{"source missing from the run", okCoverage("bq"), false},
		{"scope failed", []model.Coverage{{Source: "gcp", Status: model.CoverageDegraded,
			Errors: []model.ScopeError{{Scope: "proj-a", Error: "timeout"}}}}, false},
		{"error without scope", []model.Coverage{{Source: "gcp", Status: model.CoverageDegraded,
			Errors: []model.ScopeError{{Error: "quota"}}}}, false},
		{"another scope failed", []model.Coverage{{Source: "gcp", Status: model.CoverageDegraded,
			Errors: []model.ScopeError{{Scope: "proj-b", Error: "timeout"}}}}, true},
		{"source answered", okCoverage("gcp"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eachBackend(t, func(t *testing.T, cfg Config) {
				s := openStore(t, cfg)
				record(t, s, report(day(0), okCoverage("gcp"), grant))
				r := record(t, s, report(day(1), tc.coverage))
				if got := len(r.History.Resolved) == 1; got != tc.resolved {
					t.Fatalf("resolved = %v, want %v", got, tc.resolved)
				}
				last := r.History.Trend[len(r.History.Trend)-1]
				if wantOpen := map[bool]int{true: 0, false: 1}[tc.resolved]; last.Findings != wantOpen {
					t.Errorf("trend counts %d open, want %d", last.Findings, wantOpen)
				}
				if tc.resolved {
					return
				}
				// Still open with its old last_seen: the next run that sees it
				// does not call it new, and keeps its first seen.
				r3 := record(t, s, report(day(2), okCoverage("gcp"), grant))
				if len(r3.History.New) != 0 {
					t.Errorf("finding carried over a degraded run came back as new: %v", r3.History.New)
				}
				if !r3.Findings[0].FirstSeen.Equal(day(0)) {
					t.Errorf("first seen = %s, want %s", r3.Findings[0].FirstSeen, day(0))
				}
			})
		})
	}
}

func TestRecordKeepsWaivedFindingsApart(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		w := queue
		w.Waiver = &model.Waiver{Reason: "kept as runbook", Approver: "lead", Expires: day(30)}
		r := record(t, s, report(day(0), okCoverage("rabbit", "gcp"), w, grant))
		if !slices.Equal(r.History.New, []string{grant.Fingerprint}) {
			t.Errorf("New = %v, want only the unwaived grant", r.History.New)
		}
		if tr := r.History.Trend[0]; tr.Findings != 1 || tr.BySeverity["medium"] != 0 {
			t.Errorf("trend = %+v, want 1 open finding and the waived medium not counted", tr)
		}
		var waived int
		var reason string
		if err := s.db.QueryRow(s.bind(`SELECT waived, waiver_reason FROM findings WHERE fingerprint = ?`), w.Fingerprint).Scan(&waived, &reason); err != nil {
			t.Fatal(err)
		}
		if waived != 1 || reason != "kept as runbook" {
			t.Errorf("stored waived=%d reason=%q, want 1 and the reason", waived, reason)
		}
		// Once it disappears from an answering source it is resolved like any other.
		r2 := record(t, s, report(day(1), okCoverage("rabbit", "gcp"), grant))
		if got := fingerprints(r2.History.Resolved); !slices.Equal(got, []string{w.Fingerprint}) {
			t.Errorf("Resolved = %v, want the waived queue finding", got)
		}
	})
}

func TestRecordRejectsAReportWithoutTime(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		if err := s.Record(context.Background(), &model.Report{}); err == nil {
			t.Fatal("Record of a report without Now succeeded; want an error")
		}
	})
}

func TestConcurrentRecordsBothLand(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		a, b := openStore(t, cfg), openStore(t, cfg)
		errs := make(chan error, 2)
		go func() { errs <- a.Record(context.Background(), report(day(0), okCoverage("gcp"), grant)) }()
		go func() {
			errs <- b.Record(context.Background(), report(day(0).Add(time.Minute), okCoverage("gcp"), grant))
		}()
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatalf("concurrent Record: %v", err)
			}
		}
		r := record(t, a, report(day(1), okCoverage("gcp"), grant))
		if len(r.History.Trend) != 3 || !r.Findings[0].FirstSeen.Equal(day(0)) {
			t.Errorf("trend has %d runs, first seen %s; want 3 runs and %s", len(r.History.Trend), r.Findings[0].FirstSeen, day(0))
		}
	})
}
