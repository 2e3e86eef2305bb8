package history

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/jackc/pgx/v5"
)

// pgEnv names the variable holding a PostgreSQL DSN for the store tests.
const pgEnv = "BFAUDIT_TEST_PG_DSN"

// eachBackend runs fn on SQLite in a temp dir and, when BFAUDIT_TEST_PG_DSN
// is set, on PostgreSQL in a schema of its own that is dropped afterwards.
// Two Opens of the same cfg share one database.
func eachBackend(t *testing.T, fn func(t *testing.T, cfg Config)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		fn(t, Config{Driver: DriverSQLite, Path: filepath.Join(t.TempDir(), "sub", "history.db")})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := os.Getenv(pgEnv)
		if dsn == "" {
			t.Skipf("PostgreSQL store tests skipped: set %s, e.g. %s='postgres://postgres@127.0.0.1:5432/test?sslmode=disable'", pgEnv, pgEnv)
		}
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		schema := "bfaudit_test_" + hex.EncodeToString(b)
		t.Cleanup(func() {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Errorf("drop test schema %s: %v", schema, err)
				return
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`); err != nil {
				t.Errorf("drop test schema %s: %v", schema, err)
			}
		})
		fn(t, Config{Driver: DriverPostgres, DSNEnv: pgEnv, Schema: schema})
	})
}

func openStore(t *testing.T, cfg Config, opts ...Option) *Store {
	t.Helper()
	s, err := Open(context.Background(), cfg, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) // a Monday

func day(n int) time.Time { return t0.AddDate(0, 0, n) }

func finding(rule, bf, uri, source, scope string, sev model.Severity) model.Finding {
	return model.Finding{
		RuleID: rule, Title: rule + " title", Severity: sev, BackfillID: bf, ArtifactURI: uri,
		Owner: "alice", Message: "lingers", Source: source, Scope: scope,
		Fingerprint: model.Fingerprint(rule, model.ParseID(bf), uri),
	}
}

func okCoverage(sources ...string) []model.Coverage {
	var cs []model.Coverage
	for _, s := range sources {
		cs = append(cs, model.Coverage{Source: s, System: s, Status: model.CoverageOK})
	}
	return cs
}

func report(now time.Time, cov []model.Coverage, fs ...model.Finding) *model.Report {
	return &model.Report{Version: model.ReportVersion, Tool: "bfaudit", Now: now, Coverage: cov,
		Findings: append([]model.Finding(nil), fs...)}
}

func record(t *testing.T, s *Store, r *model.Report) *model.Report {
	t.Helper()
	if err := s.Record(context.Background(), r); err != nil {
		t.Fatalf("Record at %s: %v", r.Now, err)
	}
	if r.History == nil {
		t.Fatalf("Record at %s left History nil", r.Now)
	}
	return r
}

func fingerprints(fs []model.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Fingerprint)
	}
	return out
}
