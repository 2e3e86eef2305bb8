package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
)

// row is a finding as the store remembers it.
type row struct {
	fingerprint string
	source      string
	scope       string
	artifactURI string
	// backfillSource and backfillScope say where the finding's backfill is
	// described (its plan or record), which the finding also rests on.
	backfillSource string
	backfillScope  string
	severity       string
	firstSeen      time.Time
	lastSeen       time.Time
	resolved       bool
	waived         bool
	detail         string
}

// Record stores the run r describes and fills in, in place, each finding's
// FirstSeen and LastSeen and r.History: the previous run, the fingerprints
// new this run, the findings resolved since the previous run, the trend
// of past runs (oldest first, this run last) and, from the second run on,
// the weekly review.
//
// A finding missing this run is resolved only when its source answered for
// its scope; otherwise it stays open with its old last_seen, and the trend
// keeps counting it. Run time is r.Now.
func (s *Store) Record(ctx context.Context, r *model.Report) error {
	return s.record(ctx, r, true, nil)
}

// record does Record's work in one transaction; then, when set, runs inside
// it after the run is written; commit false rolls everything back.
func (s *Store) record(ctx context.Context, r *model.Report, commit bool, then func(*sql.Tx) error) error {
	if r.Now.IsZero() {
		return fmt.Errorf("history: record: report has no time (Now)")
	}
	now := r.Now.UTC()
	tx, err := s.writeTx(ctx)
	if err != nil {
		return fmt.Errorf("history: %s: %w", s.dbLabel, err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit

	hist := &model.History{}
	var prev sql.NullString
	if err := tx.QueryRowContext(ctx, s.bind(`SELECT MAX(at) FROM runs WHERE at <= ?`), fmtTime(now)).Scan(&prev); err != nil {
		return fmt.Errorf("history: %s: previous run: %w", s.dbLabel, err)
	}
	if hist.PreviousRun, err = parseNullTime(prev); err != nil {
		return fmt.Errorf("history: %s: previous run: %w", s.dbLabel, err)
	}
	// A run audited as of a time before the newest recorded run (two
	// audits on one store finishing out of order, or an old estate
	// re-audited with --now) adds its point to the trend but changes no
	// verdict: an older run never reopens what a newer one resolved, nor
	// resolves what a newer one saw.
	var newest sql.NullString
	if err := tx.QueryRowContext(ctx, s.bind(`SELECT MAX(at) FROM runs`)).Scan(&newest); err != nil {
		return fmt.Errorf("history: %s: newest run: %w", s.dbLabel, err)
	}
	newestAt, err := parseNullTime(newest)
	if err != nil {
		return fmt.Errorf("history: %s: newest run: %w", s.dbLabel, err)
	}
	older := newestAt.After(now)
	ans := model.AnswersOf(r.Coverage)

	open, err := s.loadRows(ctx, tx, `resolved_at IS NULL`, nil)
	if err != nil {
		return err
	}
	var unknown []string
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Fingerprint == "" {
			f.Fingerprint = model.Fingerprint(f.RuleID, model.ParseID(f.BackfillID), f.ArtifactURI)
		}
		if _, ok := open[f.Fingerprint]; !ok {
			unknown = append(unknown, f.Fingerprint)
		}
	}
	closed, err := s.loadClosed(ctx, tx, unknown)
	if err != nil {
		return err
	}
	fps := make([]string, len(r.Findings))
	for i := range r.Findings {
		fps[i] = r.Findings[i].Fingerprint
	}
	sightings, err := s.loadSightings(ctx, tx, fps)
	if err != nil {
		return err
	}
	classes := due.Classes(r)
	dues := map[string]due.State{}

	runID, err := newID()
	if err != nil {
		return err
	}
	runID = fmtTime(now) + "-" + runID

	described := describedAt(r.Backfills)
	tally := newTally()
	seen := map[string]bool{}
	for i := range r.Findings {
		f := &r.Findings[i]
		old, wasOpen := open[f.Fingerprint]
		if !wasOpen {
			old, wasOpen = closed[f.Fingerprint], false
		}
		first, last, reopened := now, now, sql.NullString{}
		switch {
		case wasOpen && len(f.Unread) > 0:
			// Carried from an earlier run, not seen again: its last sight stays.
			first, last = old.firstSeen, old.lastSeen
		case wasOpen:
			first, last = minTime(old.firstSeen, now), maxTime(old.lastSeen, now)
		case old.fingerprint != "": // resolved before, back now: same finding, reopened
			first = minTime(old.firstSeen, now)
			reopened = nullTime(now)
		}
		f.FirstSeen, f.LastSeen = first, last
		if st, ok := dues[f.Fingerprint]; ok {
			due.Apply(f, st, now)
		}
		if seen[f.Fingerprint] {
			continue // a duplicate in the report: counted and stored once
		}
		seen[f.Fingerprint] = true
		known, ok := sightings[f.Fingerprint]
		st, moved := dueOf(known, ok, *f, s.policy.For(*f, classes[model.ParseID(f.BackfillID)]), now)
		due.Apply(f, st, now)
		dues[f.Fingerprint] = st
		if moved != nil && !older {
			hist.DueChanges = append(hist.DueChanges, *moved)
		}
		if !wasOpen && !f.Waived() {
			hist.New = append(hist.New, f.Fingerprint)
		}
		tally.add(f.Severity.String(), f.Waived())
		if older {
			if err := s.earlierSighting(ctx, tx, f.Fingerprint, now); err != nil {
				return err
			}
			continue
		}
		if err := s.upsert(ctx, tx, f, described[model.ParseID(f.BackfillID)], runID, reopened); err != nil {
			return err
		}
		if err := s.saveDue(ctx, tx, f.Fingerprint, st, moved, now); err != nil {
			return err
		}
	}

	for fp, old := range open {
		if seen[fp] {
			continue
		}
		if older || !old.gone(ans) || now.Before(old.lastSeen) {
			tally.add(old.severity, old.waived) // still open: not concluded gone
			continue
		}
		if _, err := tx.ExecContext(ctx, s.bind(`UPDATE findings SET resolved_at = ?, last_run = ? WHERE fingerprint = ?`),
			fmtTime(now), runID, fp); err != nil {
			return fmt.Errorf("history: %s: resolve %s: %w", s.dbLabel, fp, err)
		}
		f, err := old.finding()
		if err != nil {
			return err
		}
		hist.Resolved = append(hist.Resolved, f)
	}
	sortFindings(hist.Resolved)
	sort.Strings(hist.New)
	sort.Slice(hist.DueChanges, func(i, j int) bool { return hist.DueChanges[i].Fingerprint < hist.DueChanges[j].Fingerprint })

	if !older {
		if err := s.storeDescriptions(ctx, tx, r.Backfills, now); err != nil {
			return err
		}
	}
	if err := s.insertRun(ctx, tx, runID, now, tally, r.Coverage); err != nil {
		return err
	}
	if hist.Trend, err = s.trend(ctx, tx, now); err != nil {
		return err
	}
	if hist.Weekly, err = s.weekly(ctx, tx, r, now); err != nil {
		return err
	}
	if then != nil {
		if err := then(tx); err != nil {
			return err
		}
	}
	if commit {
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("history: %s: commit run: %w", s.dbLabel, err)
		}
	}
	r.History = hist
	return nil
}

// earlierSighting records that a run older than the newest saw a finding:
// only its first sighting may move earlier.
func (s *Store) earlierSighting(ctx context.Context, tx *sql.Tx, fp string, at time.Time) error {
	if _, err := tx.ExecContext(ctx, s.bind(`UPDATE findings SET first_seen = ? WHERE fingerprint = ? AND first_seen > ?`),
		fmtTime(at), fp, fmtTime(at)); err != nil {
		return fmt.Errorf("history: %s: store finding %s: %w", s.dbLabel, fp, err)
	}
	return nil
}

func (s *Store) upsert(ctx context.Context, tx *sql.Tx, f *model.Finding, bf model.Location, runID string, reopened sql.NullString) error {
	detail, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("history: encode finding %s: %w", f.Fingerprint, err)
	}
	var reason string
	var expires sql.NullString
	if f.Waiver != nil {
		reason, expires = f.Waiver.Reason, nullTime(f.Waiver.Expires)
	}
	// reopened_at keeps its old value unless this run reopened the finding;
	// where the backfill is described is kept when this run did not know it.
	_, err = tx.ExecContext(ctx, s.bind(`INSERT INTO findings (fingerprint, rule_id, severity, backfill_id, artifact_uri,
		owner, source, scope, first_seen, last_seen, resolved_at, reopened_at, waived, waiver_reason, waiver_expires,
		last_run, detail, backfill_source, backfill_scope)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (fingerprint) DO UPDATE SET rule_id = excluded.rule_id, severity = excluded.severity,
		backfill_id = excluded.backfill_id, artifact_uri = excluded.artifact_uri, owner = excluded.owner,
		source = excluded.source, scope = excluded.scope, first_seen = excluded.first_seen,
		last_seen = excluded.last_seen, resolved_at = NULL,
		reopened_at = COALESCE(excluded.reopened_at, findings.reopened_at),
		waived = excluded.waived, waiver_reason = excluded.waiver_reason, waiver_expires = excluded.waiver_expires,
		last_run = excluded.last_run, detail = excluded.detail,
		backfill_source = CASE WHEN excluded.backfill_source <> '' THEN excluded.backfill_source ELSE findings.backfill_source END,
		backfill_scope = CASE WHEN excluded.backfill_source <> '' THEN excluded.backfill_scope ELSE findings.backfill_scope END`),
		f.Fingerprint, f.RuleID, f.Severity.String(), f.BackfillID, f.ArtifactURI, f.Owner, f.Source, f.Scope,
		fmtTime(f.FirstSeen), fmtTime(f.LastSeen), reopened, boolInt(f.Waived()), reason, expires, runID, string(detail),
		bf.Source, bf.Path)
	if err != nil {
		return fmt.Errorf("history: %s: store finding %s: %w", s.dbLabel, f.Fingerprint, err)
	}
	return nil
}

const rowColumns = `fingerprint, source, scope, artifact_uri, backfill_source, backfill_scope, severity, first_seen,
	last_seen, resolved_at, waived, detail`

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func (s *Store) loadRows(ctx context.Context, q querier, where string, args []any) (map[string]row, error) {
	rows, err := q.QueryContext(ctx, s.bind(`SELECT `+rowColumns+` FROM findings WHERE `+where), args...)
	if err != nil {
		return nil, fmt.Errorf("history: %s: load findings: %w", s.dbLabel, err)
	}
	defer rows.Close()
	out := map[string]row{}
	for rows.Next() {
		var rw row
		var first, last string
		var resolved sql.NullString
		var waived int
		if err := rows.Scan(&rw.fingerprint, &rw.source, &rw.scope, &rw.artifactURI, &rw.backfillSource, &rw.backfillScope, &rw.severity, &first, &last, &resolved, &waived, &rw.detail); err != nil {
			return nil, fmt.Errorf("history: %s: read finding: %w", s.dbLabel, err)
		}
		if rw.firstSeen, err = parseTime(first); err != nil {
			return nil, fmt.Errorf("history: finding %s: %w", rw.fingerprint, err)
		}
		if rw.lastSeen, err = parseTime(last); err != nil {
			return nil, fmt.Errorf("history: finding %s: %w", rw.fingerprint, err)
		}
		rw.resolved, rw.waived = resolved.Valid, waived != 0
		out[rw.fingerprint] = rw
	}
	return out, rows.Err()
}

// loadClosed reads the resolved rows among fps, in batches that stay under
// both databases' parameter limits.
func (s *Store) loadClosed(ctx context.Context, tx *sql.Tx, fps []string) (map[string]row, error) {
	out := map[string]row{}
	err := inBatches(fps, func(args []any) error {
		got, err := s.loadRows(ctx, tx, `resolved_at IS NOT NULL AND fingerprint IN (?`+strings.Repeat(", ?", len(args)-1)+`)`, args)
		maps.Copy(out, got)
		return err
	})
	return out, err
}

// finding rebuilds the finding as last seen, with its history times.
func (rw row) finding() (model.Finding, error) {
	var f model.Finding
	if err := json.Unmarshal([]byte(rw.detail), &f); err != nil {
		return f, fmt.Errorf("history: decode finding %s: %w", rw.fingerprint, err)
	}
	f.Key = model.ParseID(f.BackfillID)
	f.FirstSeen, f.LastSeen = rw.firstSeen, rw.lastSeen
	return f, nil
}

// tally counts a run's open findings after it is recorded.
type tally struct {
	open, waived int
	bySeverity   map[string]int
}

func newTally() *tally { return &tally{bySeverity: map[string]int{}} }

func (t *tally) add(severity string, waived bool) {
	if waived {
		t.waived++
		return
	}
	t.open++
	t.bySeverity[severity]++
}

func (s *Store) insertRun(ctx context.Context, tx *sql.Tx, id string, at time.Time, t *tally, coverage []model.Coverage) error {
	sev, err := json.Marshal(t.bySeverity)
	if err != nil {
		return err
	}
	complete := model.CoverageComplete(coverage)
	if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO runs (id, at, findings, waived, by_severity, complete) VALUES (?, ?, ?, ?, ?, ?)`),
		id, fmtTime(at), t.open, t.waived, string(sev), boolInt(complete)); err != nil {
		return fmt.Errorf("history: %s: store run: %w", s.dbLabel, err)
	}
	for _, c := range coverage {
		errs, err := json.Marshal(c.Errors)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO run_coverage (run_id, source, system, status, error, scope_errors,
			artifacts, backfills, records) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (run_id, source) DO NOTHING`),
			id, c.Source, c.System, string(c.Status), c.Error, string(errs), c.Artifacts, c.Backfills, c.Records); err != nil {
			return fmt.Errorf("history: %s: store coverage of %s: %w", s.dbLabel, c.Source, err)
		}
	}
	return nil
}

// trend reads the last runs up to at, oldest first.
func (s *Store) trend(ctx context.Context, tx *sql.Tx, at time.Time) ([]model.TrendPoint, error) {
	rows, err := tx.QueryContext(ctx, s.bind(`SELECT at, findings, by_severity FROM runs WHERE at <= ? ORDER BY at DESC, id DESC LIMIT ?`),
		fmtTime(at), s.trendRuns)
	if err != nil {
		return nil, fmt.Errorf("history: %s: trend: %w", s.dbLabel, err)
	}
	defer rows.Close()
	var points []model.TrendPoint
	for rows.Next() {
		var p model.TrendPoint
		var ts, sev string
		if err := rows.Scan(&ts, &p.Findings, &sev); err != nil {
			return nil, fmt.Errorf("history: %s: trend: %w", s.dbLabel, err)
		}
		if p.At, err = parseTime(ts); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(sev), &p.BySeverity); err != nil {
			return nil, fmt.Errorf("history: trend at %s: %w", ts, err)
		}
		points = append(points, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, j := 0, len(points)-1; i < j; i, j = i+1, j-1 {
		points[i], points[j] = points[j], points[i]
	}
	return points, nil
}

// sortFindings orders most severe first, then by fingerprint, so output is
// stable run to run.
func sortFindings(fs []model.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Severity != fs[j].Severity {
			return fs[i].Severity > fs[j].Severity
		}
		return fs[i].Fingerprint < fs[j].Fingerprint
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
