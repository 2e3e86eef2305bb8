package alertmanager

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
)

// Silence states of the API v2.
const (
	stateActive  = "active"
	statePending = "pending"
	stateExpired = "expired"
)

// silence is one item of GET /api/v2/silences (gettableSilence).
type silence struct {
	ID     string `json:"id"`
	Status struct {
		State string `json:"state"`
	} `json:"status"`
	UpdatedAt string    `json:"updatedAt"`
	Comment   string    `json:"comment"`
	CreatedBy string    `json:"createdBy"`
	StartsAt  string    `json:"startsAt"`
	EndsAt    string    `json:"endsAt"`
	Matchers  []matcher `json:"matchers"`

	starts, ends, updated time.Time // parsed by check
}

// matcher is one silence matcher. IsEqual is absent from Alertmanagers
// before 0.22, where every matcher was positive.
type matcher struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	IsRegex bool   `json:"isRegex"`
	IsEqual *bool  `json:"isEqual"`
}

func (m matcher) positive() bool { return m.IsEqual == nil || *m.IsEqual }

// check validates an entry and parses its times. An entry that fails is
// not understood, so it is an error at the silences unit, not skipped
// silently.
func (s *silence) check() error {
	if s.ID == "" {
		return errors.New("a silence without an id")
	}
	var err error
	if s.starts, err = parseTime(s.StartsAt); err != nil {
		return fmt.Errorf("silence %s: startsAt: %w", s.ID, err)
	}
	if s.ends, err = parseTime(s.EndsAt); err != nil {
		return fmt.Errorf("silence %s: endsAt: %w", s.ID, err)
	}
	if s.ends.Before(s.starts) {
		return fmt.Errorf("silence %s: ends (%s) before it starts (%s)", s.ID, redact.Clip(s.EndsAt, 40), redact.Clip(s.StartsAt, 40))
	}
	if s.UpdatedAt != "" {
		if s.updated, err = parseTime(s.UpdatedAt); err != nil {
			return fmt.Errorf("silence %s: updatedAt: %w", s.ID, err)
		}
	}
	switch s.Status.State {
	case stateActive, statePending, stateExpired:
	default:
		return fmt.Errorf("silence %s: unknown state %q (want active, pending or expired)", s.ID, redact.Clip(s.Status.State, 40))
	}
	if len(s.Matchers) == 0 {
		return fmt.Errorf("silence %s: no matchers", s.ID)
	}
	for i, m := range s.Matchers {
		if m.Name == "" {
			return fmt.Errorf("silence %s: matcher %d has no name", s.ID, i)
		}
	}
	return nil
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("missing")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.IsZero() {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", redact.Clip(s, 40))
	}
	return t.UTC(), nil
}

// alert is one item of GET /api/v2/alerts (gettableAlert), the part read.
type alert struct {
	Labels map[string]string `json:"labels"`
	Status struct {
		State      string   `json:"state"`
		SilencedBy []string `json:"silencedBy"`
	} `json:"status"`
}

func (a *Alertmanager) listSilences(ctx context.Context) ([]silence, error) {
	var out []silence
	if err := a.client.Get(ctx, "/api/v2/silences", nil, &out); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(out))
	for _, s := range out {
		if s.ID != "" && seen[s.ID] {
			return nil, fmt.Errorf("GET %s/api/v2/silences: silence %s is listed twice", a.client.Base(), redact.Clip(s.ID, 60))
		}
		seen[s.ID] = true
	}
	return out, nil
}

// listAlerts lists every alert Alertmanager holds, muted ones included.
func (a *Alertmanager) listAlerts(ctx context.Context) ([]alert, error) {
	q := url.Values{"active": {"true"}, "silenced": {"true"}, "inhibited": {"true"}, "unprocessed": {"true"}}
	var out []alert
	err := a.client.Get(ctx, "/api/v2/alerts", q, &out)
	return out, err
}

// mutedCount is how many alerts one silence mutes now, and how many of
// them are severity="critical".
type mutedCount struct{ all, critical int }

func countMuted(alerts []alert) map[string]mutedCount {
	out := map[string]mutedCount{}
	for _, al := range alerts {
		crit := strings.EqualFold(al.Labels["severity"], "critical")
		for _, id := range al.Status.SilencedBy {
			c := out[id]
			c.all++
			if crit {
				c.critical++
			}
			out[id] = c
		}
	}
	return out
}
