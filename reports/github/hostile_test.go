package github

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// A GitHub that stalls, drips or echoes the token back ends the sync
// within the run's deadline, with an error that names no secret.
func TestHostileGitHub(t *testing.T) {
	for _, tc := range []struct {
		name string
		srv  func(t *testing.T) string
	}{
		{"stall", func(t *testing.T) string { return hostile.Server(t, hostile.Stall()).URL }},
		{"drip", func(t *testing.T) string { return hostile.Server(t, hostile.Drip(100*time.Millisecond)).URL }},
		{"retry after an hour", func(t *testing.T) string { return hostile.Server(t, hostile.RetryAfter(429, 3600)).URL }},
		{"header echo", func(t *testing.T) string { return hostile.Server(t, hostile.EchoHeaders(502)).URL }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Repo: "acme/cleanup", Token: hostile.Canary}
			s, err := New(cfg, nil, WithBaseURL(tc.srv(t)))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := s.Sync(ctx, &model.Report{Now: time.Now()})
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("Sync did not return within a minute of a 3s deadline")
			}
			if err == nil {
				t.Fatal("Sync succeeded against a hostile server")
			}
			if strings.Contains(err.Error(), hostile.Canary) {
				t.Errorf("the token leaked into the error: %v", err)
			}
		})
	}
}
