package alertmanager

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// newActor: the source expires silences through Alertmanager's API v2
// with the client it reads them with (a configured source is initialised
// when its entry is decoded): its address, login, TLS and timeout.
func newActor(a *Alertmanager) (remedy.Actor, error) { return a, nil }

func silenceID(a *model.Artifact) (string, error) {
	if a.Kind != model.KindSilence || a.Name == "" {
		return "", fmt.Errorf("alertmanager: %s is not a silence bfaudit can act on", a.URI)
	}
	return a.Name, nil
}

// Read: an expired silence counts as gone (it mutes nothing any more).
func (a *Alertmanager) Read(ctx context.Context, art *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	id, err := silenceID(art)
	if err != nil {
		return remedy.Observed{}, err
	}
	var v struct {
		ID     string `json:"id"`
		EndsAt string `json:"endsAt"`
		Status struct {
			State string `json:"state"`
		} `json:"status"`
	}
	found, err := a.client.Lookup(ctx, "/api/v2/silence/"+url.PathEscape(id), &v)
	switch {
	case err != nil:
		return remedy.Observed{}, fmt.Errorf("alertmanager: %w", err)
	case !found || v.Status.State == "expired":
		return remedy.Observed{}, nil
	case v.ID != id:
		return remedy.Observed{}, fmt.Errorf("alertmanager: GET silence %s: the answer is not that silence", id)
	}
	ends := v.EndsAt
	if t, err := time.Parse(time.RFC3339Nano, v.EndsAt); err == nil {
		ends = t.UTC().Format(time.RFC3339)
	}
	return remedy.Observed{Found: true, State: map[string]string{"ends": ends}}, nil
}

// Expected: the silence still ends when it did (one extended or shortened
// since is someone's decision).
func (a *Alertmanager) Expected(art *model.Artifact, _ remedy.Action) map[string]string {
	if art.ExpiresAt.IsZero() {
		return map[string]string{}
	}
	return map[string]string{"ends": art.ExpiresAt.Time().UTC().Format(time.RFC3339)}
}

// Act expires the silence (DELETE /api/v2/silence/{id}).
func (a *Alertmanager) Act(ctx context.Context, art *model.Artifact, act remedy.Action) error {
	id, err := silenceID(art)
	if err != nil {
		return err
	}
	if act.Name != remedy.ExpireSilence {
		return fmt.Errorf("alertmanager: no %s", act.Name)
	}
	if err := a.client.Remove(ctx, "/api/v2/silence/"+url.PathEscape(id)); err != nil {
		return fmt.Errorf("alertmanager: expire silence %s: %w", id, err)
	}
	return nil
}
