package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// WithTeams sets the teams the weekly review groups owners by.
func WithTeams(t model.Teams) Option { return func(s *Store) { s.teams = t } }

// Bounds of the weekly review's reads, so a store of years of hourly runs
// or a million findings costs the same as a small one.
const (
	weeklyMaxRuns   = 5000  // runs read for the weeks' open counts
	weeklyMaxClosed = 10000 // resolved findings read for the times to close
	weeklyOldest    = 10
)

// weekly computes the weekly review as of now inside tx, after this run is
// written (so Preview, which rolls back, sees what Record stores). It is
// nil while the store holds fewer than two runs.
func (s *Store) weekly(ctx context.Context, tx *sql.Tx, r *model.Report, now time.Time) (*model.Weekly, error) {
	var runs int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM runs LIMIT 2) two`).Scan(&runs); err != nil {
		return nil, fmt.Errorf("history: %s: weekly: count runs: %w", s.dbLabel, err)
	}
	if runs < 2 {
		return nil, nil
	}
	_, thisWeek := model.ISOWeek(now)
	from := thisWeek.AddDate(0, 0, -7*(model.WeeklyWeeks-1))
	w := &model.Weekly{}
	var err error
	if w.Weeks, err = s.weeks(ctx, tx, from, now); err != nil {
		return nil, err
	}
	if w.Oldest, err = s.oldest(ctx, tx, now); err != nil {
		return nil, err
	}
	if w.CloseByOwner, w.CloseByTeam, err = s.closeTimes(ctx, tx, from, now); err != nil {
		return nil, err
	}
	w.Funnel = funnel(r.Backfills)
	w.OverdueByTeam = overdueByTeam(r.Findings, s.teams)
	return w, nil
}

// weeks reads the runs from from to now and keeps each week's last one,
// then counts the findings first seen and resolved in each of those weeks.
func (s *Store) weeks(ctx context.Context, tx *sql.Tx, from, now time.Time) ([]model.WeekPoint, error) {
	rows, err := tx.QueryContext(ctx, s.bind(`SELECT at, findings, by_severity FROM runs WHERE at >= ? AND at <= ?
		ORDER BY at DESC, id DESC LIMIT ?`), fmtTime(from), fmtTime(now), weeklyMaxRuns)
	if err != nil {
		return nil, fmt.Errorf("history: %s: weekly runs: %w", s.dbLabel, err)
	}
	defer rows.Close()
	var weeks []model.WeekPoint // newest first while reading
	for rows.Next() {
		var ts, sev string
		var open int
		if err := rows.Scan(&ts, &open, &sev); err != nil {
			return nil, fmt.Errorf("history: %s: weekly runs: %w", s.dbLabel, err)
		}
		at, err := parseTime(ts)
		if err != nil {
			return nil, fmt.Errorf("history: weekly run: %w", err)
		}
		label, start := model.ISOWeek(at)
		if len(weeks) > 0 && weeks[len(weeks)-1].Week == label {
			continue // an earlier run of a week already read
		}
		p := model.WeekPoint{Week: label, Start: start, Open: open}
		if err := json.Unmarshal([]byte(sev), &p.BySeverity); err != nil {
			return nil, fmt.Errorf("history: weekly run at %s: by_severity: %w", ts, err)
		}
		weeks = append(weeks, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %s: weekly runs: %w", s.dbLabel, err)
	}
	for i, j := 0, len(weeks)-1; i < j; i, j = i+1, j-1 {
		weeks[i], weeks[j] = weeks[j], weeks[i]
	}
	for i := range weeks {
		lo, hi := fmtTime(weeks[i].Start), fmtTime(weeks[i].Start.AddDate(0, 0, 7))
		if err := tx.QueryRowContext(ctx, s.bind(`SELECT COUNT(*) FROM findings WHERE first_seen >= ? AND first_seen < ?`), lo, hi).
			Scan(&weeks[i].New); err != nil {
			return nil, fmt.Errorf("history: %s: weekly new in %s: %w", s.dbLabel, weeks[i].Week, err)
		}
		if err := tx.QueryRowContext(ctx, s.bind(`SELECT COUNT(*) FROM findings WHERE resolved_at >= ? AND resolved_at < ?`), lo, hi).
			Scan(&weeks[i].Resolved); err != nil {
			return nil, fmt.Errorf("history: %s: weekly resolved in %s: %w", s.dbLabel, weeks[i].Week, err)
		}
	}
	return weeks, nil
}

// severityRank orders the stored severity names most severe first (an
// unknown name last), so "oldest open items" never lists lows while
// criticals of the same age wait (issue 35).
const severityRank = `CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5 END`

// oldest reads the open, unwaived findings most severe first, then first
// seen longest ago.
func (s *Store) oldest(ctx context.Context, tx *sql.Tx, now time.Time) ([]model.OldFinding, error) {
	rows, err := tx.QueryContext(ctx, s.bind(`SELECT fingerprint, rule_id, backfill_id, owner, severity, first_seen FROM findings
		WHERE resolved_at IS NULL AND waived = 0 ORDER BY `+severityRank+`, first_seen, fingerprint LIMIT ?`), weeklyOldest)
	if err != nil {
		return nil, fmt.Errorf("history: %s: oldest findings: %w", s.dbLabel, err)
	}
	defer rows.Close()
	var out []model.OldFinding
	for rows.Next() {
		var o model.OldFinding
		var sev, first string
		if err := rows.Scan(&o.Fingerprint, &o.RuleID, &o.BackfillID, &o.Owner, &sev, &first); err != nil {
			return nil, fmt.Errorf("history: %s: oldest findings: %w", s.dbLabel, err)
		}
		if o.FirstSeen, err = parseTime(first); err != nil {
			return nil, fmt.Errorf("history: finding %s: %w", o.Fingerprint, err)
		}
		// A severity the store no longer knows stays zero rather than
		// failing the run: the row still belongs in the list.
		o.Severity, _ = model.ParseSeverity(sev)
		o.AgeDays = max(0, int(now.Sub(o.FirstSeen).Hours()/24))
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %s: oldest findings: %w", s.dbLabel, err)
	}
	return out, nil
}

// noOwner names findings without an owner in CloseByOwner.
const noOwner = "(no owner)"

// closeTimes reads the findings resolved from from to now and takes each
// owner's and team's median time from first seen to resolved.
func (s *Store) closeTimes(ctx context.Context, tx *sql.Tx, from, now time.Time) (byOwner, byTeam []model.CloseTime, err error) {
	rows, err := tx.QueryContext(ctx, s.bind(`SELECT owner, first_seen, resolved_at FROM findings
		WHERE resolved_at >= ? AND resolved_at <= ? ORDER BY resolved_at DESC LIMIT ?`), fmtTime(from), fmtTime(now), weeklyMaxClosed)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %s: times to close: %w", s.dbLabel, err)
	}
	defer rows.Close()
	owners, teams := map[string][]float64{}, map[string][]float64{}
	for rows.Next() {
		var owner, first, resolved string
		if err := rows.Scan(&owner, &first, &resolved); err != nil {
			return nil, nil, fmt.Errorf("history: %s: times to close: %w", s.dbLabel, err)
		}
		f, err := parseTime(first)
		if err != nil {
			return nil, nil, fmt.Errorf("history: times to close: %w", err)
		}
		r, err := parseTime(resolved)
		if err != nil {
			return nil, nil, fmt.Errorf("history: times to close: %w", err)
		}
		days := max(0, r.Sub(f).Hours()/24)
		name := owner
		if name == "" {
			name = noOwner
		}
		owners[name] = append(owners[name], days)
		if team := s.teams.Name(owner); team != "" {
			teams[team] = append(teams[team], days)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("history: %s: times to close: %w", s.dbLabel, err)
	}
	return medians(owners), medians(teams), nil
}

// medians turns durations by name into close times, slowest first.
func medians(by map[string][]float64) []model.CloseTime {
	var out []model.CloseTime
	for name, ds := range by {
		out = append(out, model.CloseTime{Name: name, Closed: len(ds), MedianDays: math.Round(median(ds)*10) / 10})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].MedianDays != out[j].MedianDays {
			return out[i].MedianDays > out[j].MedianDays
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = append([]float64(nil), xs...)
	sort.Float64s(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}

// funnel counts the known backfills at or past each lifecycle step; an
// unknown backfill (an artifact no plan describes) has no lifecycle.
func funnel(bs []model.BackfillReport) []model.StepCount {
	steps := append([]model.Step{model.StepPlan}, model.Steps()...)
	out := make([]model.StepCount, len(steps))
	for i, st := range steps {
		out[i].Step = st
		for _, b := range bs {
			if b.Known && b.Lifecycle.Reached >= st {
				out[i].Backfills++
			}
		}
	}
	return out
}

// noTeam names owners in no team in OverdueByTeam.
const noTeam = "(no team)"

// overdueByTeam counts the open, unwaived, overdue findings by team.
func overdueByTeam(fs []model.Finding, teams model.Teams) []model.TeamCount {
	by := map[string]int{}
	for _, f := range fs {
		if f.Waived() || !f.Overdue {
			continue
		}
		team := teams.Name(f.Owner)
		if team == "" {
			team = noTeam
		}
		by[team]++
	}
	var out []model.TeamCount
	for t, n := range by {
		out = append(out, model.TeamCount{Team: t, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Team < out[j].Team
	})
	return out
}
