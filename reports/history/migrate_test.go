package history

import (
	"context"
	"sync"
	"testing"
)

func TestMigrationsAreIdempotentOnReopen(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s1 := openStore(t, cfg)
		record(t, s1, report(day(0), okCoverage("gcp"), grant))
		s1.Close()

		s2 := openStore(t, cfg)
		var rows, max int
		if err := s2.db.QueryRowContext(ctx, `SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&rows, &max); err != nil {
			t.Fatal(err)
		}
		if rows != SchemaVersion() || max != SchemaVersion() {
			t.Errorf("schema_version has %d rows up to %d, want each of %d versions once", rows, max, SchemaVersion())
		}
		r := record(t, s2, report(day(1), okCoverage("gcp"), grant))
		if !r.History.PreviousRun.Equal(day(0)) || !r.Findings[0].FirstSeen.Equal(day(0)) {
			t.Errorf("after reopen: previous run %s, first seen %s; want the data kept (%s)", r.History.PreviousRun, r.Findings[0].FirstSeen, day(0))
		}
	})
}

func TestConcurrentOpensMigrateOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(context.Background(), cfg)
				if err == nil {
					s.Close()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("open %d: %v", i, err)
			}
		}
		s := openStore(t, cfg)
		var rows int
		if err := s.db.QueryRow(`SELECT COUNT(*) FROM schema_version`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != SchemaVersion() {
			t.Errorf("schema_version rows = %d, want %d", rows, SchemaVersion())
		}
	})
}

func TestStatementsSplitsMigrationFiles(t *testing.T) {
	got := statements("-- comment\nCREATE TABLE a (x INTEGER);\n\nCREATE INDEX a_x ON a (x);\n-- trailing\n")
	if len(got) != 2 || got[0] != "CREATE TABLE a (x INTEGER)" || got[1] != "CREATE INDEX a_x ON a (x)" {
		t.Errorf("statements = %q", got)
	}
}
