package unleash

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// newActor: the source archives flags through Unleash's Admin API with
// the client it reads them with (a configured source is initialised when
// its entry is decoded): its address, token, TLS and timeout. A source
// read from an export has nothing to act through.
func newActor(u *Unleash) (remedy.Actor, error) {
	if u.ExportDir != "" {
		return nil, nil
	}
	return u, nil
}

// unleashFlag is the project and name of a flag artifact.
func unleashFlag(a *model.Artifact) (project, name string, err error) {
	p, n, ok := ParseUnleashFlag(a.URI)
	if a.Kind != model.KindFeatureFlag || !ok {
		return "", "", fmt.Errorf("unleash: %s is not a flag bfaudit can act on", a.URI)
	}
	return p, n, nil
}

// Read: an archived flag is gone (the detail of an archived flag answers
// 404 in Unleash 7; older servers say archived: true). Its state is the
// environments it is on in.
func (u *Unleash) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	project, name, err := unleashFlag(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	var v struct {
		Name         string `json:"name"`
		Archived     bool   `json:"archived"`
		Environments []struct {
			Name    string `json:"name"`
			Enabled bool   `json:"enabled"`
		} `json:"environments"`
	}
	found, err := u.client.Lookup(ctx, flagPath(project, name), &v)
	switch {
	case err != nil:
		return remedy.Observed{}, fmt.Errorf("unleash: %w", err)
	case !found || v.Archived:
		return remedy.Observed{}, nil
	case v.Name != name:
		return remedy.Observed{}, fmt.Errorf("unleash: GET flag %s in project %s: the answer is not that flag", name, project)
	}
	var on []string
	for _, e := range v.Environments {
		if e.Enabled {
			on = append(on, e.Name)
		}
	}
	sort.Strings(on)
	return remedy.Observed{Found: true, State: map[string]string{model.AttrEnabledIn: strings.Join(on, ",")}}, nil
}

// Expected: the flag is on where the audit saw it on (one turned on or off
// since is someone's decision).
func (u *Unleash) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return map[string]string{model.AttrEnabledIn: a.Attr(model.AttrEnabledIn)}
}

// Act archives the flag (DELETE /api/admin/projects/{p}/features/{name});
// it can be revived from the archive.
func (u *Unleash) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	project, name, err := unleashFlag(a)
	if err != nil {
		return err
	}
	if act.Name != remedy.ArchiveFlag {
		return fmt.Errorf("unleash: no %s", act.Name)
	}
	if err := u.client.Remove(ctx, flagPath(project, name)); err != nil {
		return fmt.Errorf("unleash: archive flag %s in project %s: %w", name, project, err)
	}
	return nil
}
