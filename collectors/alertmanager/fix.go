package alertmanager

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// amSystem expires silences through Alertmanager's API v2 with the
// source's own client: its address, login, TLS and timeout.
type amSystem struct{ api *apiclient.Client }

// newAlertmanager uses the client the source built in Init (a configured
// source is initialised when its entry is decoded).
func newAlertmanager(a *Alertmanager) (remedy.Actor, error) {
	return &amSystem{api: a.API()}, nil
}

func (s *amSystem) do(ctx context.Context, method, path string) (*http.Response, error) {
	return s.api.Do(ctx, method, path, nil)
}

func silenceID(a *model.Artifact) (string, error) {
	if a.Kind != model.KindSilence || a.Name == "" {
		return "", fmt.Errorf("alertmanager: %s is not a silence bfaudit can act on", a.URI)
	}
	return a.Name, nil
}

// Read: an expired silence counts as gone (it mutes nothing any more).
func (s *amSystem) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	id, err := silenceID(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	resp, err := s.do(ctx, http.MethodGet, "/api/v2/silence/"+url.PathEscape(id))
	if remote.IsStatus(err, http.StatusNotFound) {
		return remedy.Observed{}, nil
	}
	if err != nil {
		return remedy.Observed{}, fmt.Errorf("alertmanager: %w", err)
	}
	defer resp.Body.Close()
	var v struct {
		ID     string `json:"id"`
		EndsAt string `json:"endsAt"`
		Status struct {
			State string `json:"state"`
		} `json:"status"`
	}
	if err := remote.DecodeJSON(resp.Body, remote.MaxObjectAnswer, &v); err != nil || v.ID != id {
		return remedy.Observed{}, fmt.Errorf("alertmanager: GET silence %s: the answer is not that silence", id)
	}
	if v.Status.State == "expired" {
		return remedy.Observed{}, nil
	}
	ends := v.EndsAt
	if t, err := time.Parse(time.RFC3339Nano, v.EndsAt); err == nil {
		ends = t.UTC().Format(time.RFC3339)
	}
	return remedy.Observed{Found: true, State: map[string]string{"ends": ends}}, nil
}

// Expected: the silence still ends when it did (one extended or shortened
// since is someone's decision).
func (s *amSystem) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	if a.ExpiresAt.IsZero() {
		return map[string]string{}
	}
	return map[string]string{"ends": a.ExpiresAt.UTC().Format(time.RFC3339)}
}

// Act expires the silence (DELETE /api/v2/silence/{id}).
func (s *amSystem) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	id, err := silenceID(a)
	if err != nil {
		return err
	}
	if act.Name != remedy.ExpireSilence {
		return fmt.Errorf("alertmanager: no %s", act.Name)
	}
	resp, err := s.do(ctx, http.MethodDelete, "/api/v2/silence/"+url.PathEscape(id))
	if remote.IsStatus(err, http.StatusNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("alertmanager: expire silence %s: %w", id, err)
	}
	resp.Body.Close()
	return nil
}
