package pushgateway

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// newActor: the source deletes groups through the client it reads them
// with (address, login, TLS, timeout, retries).
func newActor(p *Pushgateway) (remedy.Actor, error) { return p, nil }

// Read finds the group again in the listing (the API has no call for one
// group) by its whole grouping key: gone, or when it was last pushed.
func (p *Pushgateway) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	key, ok := keyPathOf(a.URI)
	if !ok {
		return remedy.Observed{}, fmt.Errorf("pushgateway: %s is not a metric group bfaudit can act on", a.URI)
	}
	groups, err := list(ctx, p.client)
	if err != nil {
		return remedy.Observed{}, fmt.Errorf("pushgateway: %w", err)
	}
	for _, g := range groups {
		if keyPath(g.Labels) == key {
			return remedy.Observed{Found: true, State: map[string]string{"pushed": g.PushTime.At.UTC().Format(time.RFC3339Nano)}}, nil
		}
	}
	return remedy.Observed{}, nil
}

// Expected: the last push the audit saw; a group pushed since is left alone.
func (p *Pushgateway) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return map[string]string{"pushed": a.ModifiedAt.Time().UTC().Format(time.RFC3339Nano)}
}

// Act deletes the group (a group already gone is no error to the API).
func (p *Pushgateway) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	key, ok := keyPathOf(a.URI)
	if !ok || act.Name != DeleteMetricGroup {
		return fmt.Errorf("pushgateway: no %s on %s", act.Name, a.URI)
	}
	if err := p.client.Send(ctx, http.MethodDelete, "/metrics"+key, "", nil); err != nil {
		return fmt.Errorf("pushgateway: delete metric group %s: %w", key[1:], err)
	}
	return nil
}
