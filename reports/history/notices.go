package history

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Notice stages, in the order a finding passes through them: listed when
// its owner first sees it (their GitHub issue, their Slack message), a
// reminder before it is due, overdue once due, escalation to the owner's
// team lead after escalate_after.
const (
	StageListed     = "listed"
	StageReminder   = "reminder"
	StageOverdue    = "overdue"
	StageEscalation = "escalation"
)

// Notice is one message sent about a finding: the proof `fix --apply
// --due` asks for (the owner was told at least notice_days before).
type Notice struct {
	Fingerprint string
	Stage       string
	Channel     string // github, slack
	Recipient   string // the owner, a login, a channel
	SentAt      time.Time
}

// RecordNotice stores a notice once: a second one of the same finding,
// stage and channel keeps the first (its time is when the owner was told).
// It reports whether this call stored it.
func (s *Store) RecordNotice(ctx context.Context, n Notice) (bool, error) {
	if n.Fingerprint == "" || n.Stage == "" || n.Channel == "" || n.SentAt.IsZero() {
		return false, fmt.Errorf("history: record notice: fingerprint, stage, channel and time are required")
	}
	res, err := s.db.ExecContext(ctx, s.bind(`INSERT INTO notices (fingerprint, stage, channel, recipient, sent_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (fingerprint, stage, channel) DO NOTHING`),
		n.Fingerprint, n.Stage, n.Channel, n.Recipient, fmtTime(n.SentAt))
	if err != nil {
		return false, fmt.Errorf("history: %s: record notice: %w", s.dbLabel, err)
	}
	rows, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("history: %s: record notice: %w", s.dbLabel, err)
	}
	return rows == 1, nil
}

// Notices lists the notices sent about a finding, oldest first.
func (s *Store) Notices(ctx context.Context, fingerprint string) ([]Notice, error) {
	all, err := s.NoticesOf(ctx, []string{fingerprint})
	return all[fingerprint], err
}

// NoticesOf lists the notices sent about each of fps, oldest first, read
// in batches under both databases' parameter limits: one query per 500
// findings, not one per finding.
func (s *Store) NoticesOf(ctx context.Context, fps []string) (map[string][]Notice, error) {
	out := map[string][]Notice{}
	if err := inBatches(fps, func(args []any) error { return s.readNotices(ctx, args, out) }); err != nil {
		return nil, err
	}
	for _, ns := range out {
		slices.SortStableFunc(ns, func(a, b Notice) int { return a.SentAt.Compare(b.SentAt) })
	}
	return out, nil
}

func (s *Store) readNotices(ctx context.Context, args []any, out map[string][]Notice) error {
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT fingerprint, stage, channel, recipient, sent_at FROM notices
		WHERE fingerprint IN (?`+strings.Repeat(", ?", len(args)-1)+`) ORDER BY stage, channel`), args...)
	if err != nil {
		return fmt.Errorf("history: %s: notices: %w", s.dbLabel, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n Notice
		var at string
		if err := rows.Scan(&n.Fingerprint, &n.Stage, &n.Channel, &n.Recipient, &at); err != nil {
			return fmt.Errorf("history: %s: notices: %w", s.dbLabel, err)
		}
		if n.SentAt, err = parseTime(at); err != nil {
			return fmt.Errorf("history: %s: notices: sent_at %q: %w", s.dbLabel, at, err)
		}
		out[n.Fingerprint] = append(out[n.Fingerprint], n)
	}
	return rows.Err()
}

// FirstNotifiedOf is, for each of fps whose owner was told, when first
// (any stage, any channel).
func (s *Store) FirstNotifiedOf(ctx context.Context, fps []string) (map[string]time.Time, error) {
	all, err := s.NoticesOf(ctx, fps)
	if err != nil {
		return nil, err
	}
	out := make(map[string]time.Time, len(all))
	for fp, ns := range all {
		if len(ns) > 0 {
			out[fp] = ns[0].SentAt // oldest first
		}
	}
	return out, nil
}

// FirstNotified is when the finding's owner was first told of it (any
// stage, any channel); false when never.
func (s *Store) FirstNotified(ctx context.Context, fingerprint string) (time.Time, bool, error) {
	all, err := s.FirstNotifiedOf(ctx, []string{fingerprint})
	at, ok := all[fingerprint]
	return at, ok, err
}
