package pushgateway

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// actor deletes groups through the source's own client: its address,
// login, TLS and timeout.
type actor struct{ api *apiclient.Client }

// newActor uses the client the source built in Init, initialising a
// source that was not (only its client is needed, so an empty Env).
func newActor(p *Pushgateway) (remedy.Actor, error) {
	if p.client == nil {
		if err := p.Init(collectors.Env{}); err != nil {
			return nil, err
		}
	}
	return &actor{api: p.client}, nil
}

// statePushed is the one fact that decides whether a group changed.
const statePushed = "pushed"

// Read lists the groups again (the API has no call for one group) and
// finds this one by its whole grouping key: gone, or when it was last
// pushed.
func (s *actor) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	labels, ok := parseGroupURI(a.URI)
	if !ok {
		return remedy.Observed{}, fmt.Errorf("pushgateway: %s is not a metric group bfaudit can act on", a.URI)
	}
	groups, err := list(ctx, s.api)
	if err != nil {
		return remedy.Observed{}, fmt.Errorf("pushgateway: %w", err)
	}
	for _, g := range groups {
		if maps.Equal(g.Labels, labels) {
			pushed, _ := g.pushed()
			return remedy.Observed{Found: true, State: map[string]string{statePushed: pushed.Format(time.RFC3339Nano)}}, nil
		}
	}
	return remedy.Observed{}, nil
}

// Expected: the group was last pushed when the audit saw it. One pushed
// since is a replay still running, or running again: it is left alone.
func (s *actor) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return map[string]string{statePushed: a.ModifiedAt.UTC().Format(time.RFC3339Nano)}
}

// Act deletes the group (DELETE /metrics/job/...); deleting a group that
// is gone is not an error to the Pushgateway.
func (s *actor) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	labels, ok := parseGroupURI(a.URI)
	if !ok || act.Name != remedy.DeleteMetricGroup {
		return fmt.Errorf("pushgateway: no %s on %s", act.Name, a.URI)
	}
	if err := s.api.Send(ctx, http.MethodDelete, groupPath(labels), "", nil); err != nil {
		return fmt.Errorf("pushgateway: delete metric group %s: %w", groupName(labels), err)
	}
	return nil
}
