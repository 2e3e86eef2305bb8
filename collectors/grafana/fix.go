package grafana

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// newActor: the source deletes dashboards and Grafana-managed alert rules
// through Grafana's HTTP API with the client it reads them with (a
// configured source is initialised when its entry is decoded): its
// address, token, TLS and timeout. A source reading an export has no
// server to act on.
func newActor(g *Grafana) (remedy.Actor, error) {
	if g.ExportDir != "" {
		return nil, nil
	}
	return g, nil
}

// grafanaPath is the API path of a dashboard or alert rule.
func grafanaPath(a *model.Artifact) (string, error) {
	uid := objectUID(a)
	if path := apiPath(a.Kind, uid); uid != "" && path != "" {
		return path, nil
	}
	return "", fmt.Errorf("grafana: %s is not a dashboard or alert rule bfaudit can act on", a.URI)
}

// Read re-reads the dashboard (its version) or the rule (when it was
// last updated); a 404 is gone.
func (g *Grafana) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	path, err := grafanaPath(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	// One shape for both answers: a dashboard's (meta, dashboard) and an
	// alert rule's (uid, updated).
	var v struct {
		Meta struct {
			Version int64 `json:"version"`
		} `json:"meta"`
		Dashboard map[string]any `json:"dashboard"`
		UID       string         `json:"uid"`
		Updated   string         `json:"updated"`
	}
	found, err := g.client.Lookup(ctx, path, &v)
	dashboard := a.Kind == model.KindDashboard
	switch {
	case err != nil:
		return remedy.Observed{}, fmt.Errorf("grafana: %w", err)
	case !found:
		return remedy.Observed{}, nil
	case dashboard && v.Dashboard == nil:
		return remedy.Observed{}, fmt.Errorf("grafana: GET %s: the answer is not that dashboard", path)
	case dashboard:
		return remedy.Observed{Found: true, State: map[string]string{"version": strconv.FormatInt(v.Meta.Version, 10)}}, nil
	case v.UID == "":
		return remedy.Observed{}, fmt.Errorf("grafana: GET %s: the answer is not that alert rule", path)
	}
	return remedy.Observed{Found: true, State: map[string]string{"updated": normTime(v.Updated)}}, nil
}

func normTime(s string) string {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	return s
}

// Expected: the dashboard is at the version the audit read, the rule was
// not updated since (a change since is someone's decision).
func (g *Grafana) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	switch {
	case a.Kind == model.KindDashboard && a.Attr(AttrVersion) != "":
		return map[string]string{"version": a.Attr(AttrVersion)}
	case a.Kind == model.KindAlert && !a.ModifiedAt.IsZero():
		return map[string]string{"updated": a.ModifiedAt.Time().UTC().Format(time.RFC3339)}
	}
	return map[string]string{}
}

// Act deletes the dashboard (DELETE /api/dashboards/uid/{uid}) or the rule
// (DELETE /api/v1/provisioning/alert-rules/{UID}); one already gone is done.
func (g *Grafana) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	path, err := grafanaPath(a)
	if err != nil {
		return err
	}
	switch {
	case act.Name == remedy.DeleteDashboard && a.Kind == model.KindDashboard:
	case act.Name == remedy.DeleteAlertRule && a.Kind == model.KindAlert:
	default:
		return fmt.Errorf("grafana: no %s for a %s", act.Name, a.Kind)
	}
	if err := g.client.Remove(ctx, path); err != nil {
		return fmt.Errorf("grafana: %s %s: %w", act.Name, a.Name, err)
	}
	return nil
}
