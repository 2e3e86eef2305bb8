package history

import (
	"context"

	"github.com/bfaudit/bfaudit/model"
)

// Preview fills r as Record would (each finding's FirstSeen and LastSeen,
// r.History) but stores nothing: a dry run shows the ages, new and resolved
// a real run would. Until the Store is closed, ChangesSince also counts the
// previewed run, so the Slack digest's dry run prints the payloads the real
// run will post. The last Preview wins.
func (s *Store) Preview(ctx context.Context, r *model.Report) error {
	if err := s.record(ctx, r, false, nil); err != nil {
		return err
	}
	p := *r
	p.Findings = append([]model.Finding(nil), r.Findings...)
	p.History = nil
	s.mu.Lock()
	s.preview = &p
	s.mu.Unlock()
	return nil
}

// previewed returns a copy of the previewed run to replay, or nil.
func (s *Store) previewed() *model.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.preview == nil {
		return nil
	}
	p := *s.preview
	p.Findings = append([]model.Finding(nil), s.preview.Findings...)
	return &p
}
