package history

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
)

// WithDue sets the due policy Record and Due apply (default
// due.DefaultPolicy(), the config's default).
func WithDue(p due.Policy) Option { return func(s *Store) { s.policy = p } }

// Policy is the due policy the store applies.
func (s *Store) Policy() due.Policy { return s.policy }

// sighting is what the store knows of a finding, for its due date.
type sighting struct {
	firstSeen time.Time
	resolved  bool
	due       *due.State // nil: no due date stored yet
}

// dueOf carries a finding's due date to this run (see due.Next): a
// finding without a stored one starts its clock at its first sighting.
func dueOf(known sighting, ok bool, f model.Finding, rule due.Rule, now time.Time) (due.State, *due.Change) {
	reopened := ok && known.resolved
	if !ok || known.due == nil {
		first := now
		if ok && !reopened {
			first = minTime(known.firstSeen, now)
		}
		return due.Start(first, f, rule), nil
	}
	return due.Next(*known.due, reopened, f, rule, now)
}

// Due fills in each finding's DueAt and Overdue as Record will, storing
// nothing: the GitHub sync, which runs before the run is recorded, shows
// the same due dates the store keeps.
func (s *Store) Due(ctx context.Context, r *model.Report) error {
	if r.Now.IsZero() {
		return fmt.Errorf("history: due: report has no time (Now)")
	}
	now := r.Now.UTC()
	fps := make([]string, 0, len(r.Findings))
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Fingerprint == "" {
			f.Fingerprint = model.Fingerprint(f.RuleID, model.ParseID(f.BackfillID), f.ArtifactURI)
		}
		fps = append(fps, f.Fingerprint)
	}
	known, err := s.loadSightings(ctx, s.db, fps)
	if err != nil {
		return err
	}
	classes := due.Classes(r)
	for i := range r.Findings {
		f := &r.Findings[i]
		k, ok := known[f.Fingerprint]
		st, _ := dueOf(k, ok, *f, s.policy.For(*f, classes[model.ParseID(f.BackfillID)]), now)
		due.Apply(f, st, now)
	}
	return nil
}

// DueOf is the stored due date of one finding, for what acts on it
// (reminders, escalation, `fix --apply --due`); false when none is stored.
// The state's DueAt is kept while the finding is waived: check Waived.
func (s *Store) DueOf(ctx context.Context, fingerprint string) (due.State, bool, error) {
	known, err := s.loadSightings(ctx, s.db, []string{fingerprint})
	if err != nil {
		return due.State{}, false, err
	}
	k, ok := known[fingerprint]
	if !ok || k.due == nil {
		return due.State{}, false, nil
	}
	return *k.due, true, nil
}

// DueChanges lists the due dates that moved after since and up to until,
// oldest first.
func (s *Store) DueChanges(ctx context.Context, since, until time.Time) ([]model.DueChange, error) {
	return s.dueChanges(ctx, s.db, since, until)
}

func (s *Store) dueChanges(ctx context.Context, q querier, since, until time.Time) ([]model.DueChange, error) {
	rows, err := q.QueryContext(ctx, s.bind(`SELECT fingerprint, at, from_due, to_due, from_policy, to_policy, reason
		FROM due_changes WHERE at > ? AND at <= ? ORDER BY at, fingerprint`), fmtTime(since), fmtTime(until))
	if err != nil {
		return nil, fmt.Errorf("history: %s: due changes: %w", s.dbLabel, err)
	}
	defer rows.Close()
	var out []model.DueChange
	for rows.Next() {
		var c model.DueChange
		var at string
		var from, to sql.NullString
		if err := rows.Scan(&c.Fingerprint, &at, &from, &to, &c.FromPolicy, &c.ToPolicy, &c.Reason); err != nil {
			return nil, fmt.Errorf("history: %s: due changes: %w", s.dbLabel, err)
		}
		if c.At, err = parseTime(at); err != nil {
			return nil, err
		}
		if c.From, err = parseNullTime(from); err != nil {
			return nil, err
		}
		if c.To, err = parseNullTime(to); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// loadSightings reads, for each of fps the store knows, its first sighting,
// whether it is resolved and its stored due date, in batches under both
// databases' parameter limits.
func (s *Store) loadSightings(ctx context.Context, q querier, fps []string) (map[string]sighting, error) {
	out := make(map[string]sighting, len(fps))
	err := inBatches(fps, func(args []any) error { return s.readSightings(ctx, q, args, out) })
	return out, err
}

func (s *Store) readSightings(ctx context.Context, q querier, args []any, out map[string]sighting) error {
	rows, err := q.QueryContext(ctx, s.bind(`SELECT f.fingerprint, f.first_seen, f.resolved_at,
		d.since, d.due_at, d.policy, d.period_seconds, d.waived
		FROM findings f LEFT JOIN finding_due d ON d.fingerprint = f.fingerprint
		WHERE f.fingerprint IN (?`+strings.Repeat(", ?", len(args)-1)+`)`), args...)
	if err != nil {
		return fmt.Errorf("history: %s: load due dates: %w", s.dbLabel, err)
	}
	defer rows.Close()
	for rows.Next() {
		var fp, first string
		var resolved, since, dueAt, policy sql.NullString
		var period, waived sql.NullInt64
		if err := rows.Scan(&fp, &first, &resolved, &since, &dueAt, &policy, &period, &waived); err != nil {
			return fmt.Errorf("history: %s: read due date: %w", s.dbLabel, err)
		}
		var k sighting
		if k.firstSeen, err = parseTime(first); err != nil {
			return fmt.Errorf("history: finding %s: %w", fp, err)
		}
		k.resolved = resolved.Valid
		if since.Valid {
			st := due.State{Waived: waived.Int64 != 0}
			if st.Since, err = parseTime(since.String); err == nil {
				st.DueAt, err = parseNullTime(dueAt)
			}
			if err != nil {
				return fmt.Errorf("history: due date of %s: %w", fp, err)
			}
			p := time.Duration(period.Int64) * time.Second
			st.Rule = due.Rule{Period: p, From: strings.TrimSuffix(policy.String, " "+due.Period(p))}
			k.due = &st
		}
		out[fp] = k
	}
	return rows.Err()
}

// saveDue stores a finding's due state, and the move when it moved.
func (s *Store) saveDue(ctx context.Context, tx *sql.Tx, fp string, st due.State, ch *due.Change, now time.Time) error {
	if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO finding_due (fingerprint, since, due_at, policy, period_seconds, waived, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (fingerprint) DO UPDATE SET since = excluded.since, due_at = excluded.due_at, policy = excluded.policy,
		period_seconds = excluded.period_seconds, waived = excluded.waived, updated_at = excluded.updated_at`),
		fp, fmtTime(st.Since), nullTime(st.DueAt), st.Rule.String(), int64(st.Rule.Period/time.Second), boolInt(st.Waived), fmtTime(now)); err != nil {
		return fmt.Errorf("history: %s: store due date of %s: %w", s.dbLabel, fp, err)
	}
	if ch == nil {
		return nil
	}
	if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO due_changes (fingerprint, at, from_due, to_due, from_policy, to_policy, reason)
		VALUES (?, ?, ?, ?, ?, ?, ?)`),
		fp, fmtTime(ch.At), nullTime(ch.From), nullTime(ch.To), ch.FromPolicy, ch.ToPolicy, ch.Reason); err != nil {
		return fmt.Errorf("history: %s: store due change of %s: %w", s.dbLabel, fp, err)
	}
	return nil
}
