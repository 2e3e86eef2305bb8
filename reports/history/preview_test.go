package history

import (
	"context"
	"slices"
	"testing"
)

func TestPreviewFillsTheReportButStoresNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s := openStore(t, cfg)
		record(t, s, report(day(0), okCoverage("gcp", "bq"), grant))

		r := report(day(7), okCoverage("gcp", "bq"), grant, table)
		if err := s.Preview(ctx, r); err != nil {
			t.Fatal(err)
		}
		if !r.Findings[0].FirstSeen.Equal(day(0)) || !slices.Equal(r.History.New, []string{table.Fingerprint}) {
			t.Errorf("preview: grant first seen %s, new %v; want %s and the table", r.Findings[0].FirstSeen, r.History.New, day(0))
		}
		ch, err := s.ChangesSince(ctx, day(0), day(7))
		if err != nil || len(ch.New) != 1 || ch.New[0].Fingerprint != table.Fingerprint {
			t.Errorf("ChangesSince after Preview = %v, %v; want the previewed table as new", fingerprints(ch.New), err)
		}
		var runs, rows int
		if err := s.db.QueryRow(`SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM findings)`).Scan(&runs, &rows); err != nil {
			t.Fatal(err)
		}
		if runs != 1 || rows != 1 {
			t.Errorf("after Preview the store has %d runs and %d findings, want the 1 and 1 recorded before", runs, rows)
		}
		// A real run later is not confused by the preview.
		other := openStore(t, cfg)
		r2 := record(t, other, report(day(7), okCoverage("gcp", "bq"), grant, table))
		if !slices.Equal(r2.History.New, []string{table.Fingerprint}) {
			t.Errorf("Record after a Preview: new %v, want the table", r2.History.New)
		}
	})
}
