package unleash

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// open picks where to read: the export directory or the Admin API.
func (u *Unleash) open() (api, error) {
	if u.ExportDir != "" {
		dir := u.exportDir()
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("export_dir: %q is not a readable directory", dir)
		}
		return &dirAPI{dir: dir}, nil
	}
	if u.client == nil {
		return nil, fmt.Errorf("not initialised (Init was not called)")
	}
	return &httpAPI{c: u.client, maxPages: u.MaxPages}, nil
}

// Collect lists the projects and the environments (a failure of either
// fails the source), then per project its live and archived flags (a
// failure is an error at the project), keeps the flags tied to a backfill
// and reads each live one's detail for its strategies (a failure is an
// error at the flag, which is still reported from the listing).
func (u *Unleash) Collect(ctx context.Context, sink collectors.Sink) error {
	u.mu.Lock()
	u.notes = nil
	u.mu.Unlock()
	src, err := u.open()
	if err != nil {
		return fmt.Errorf("unleash source %s: %w", u.sourceName(), err)
	}
	projects, err := src.projects(ctx)
	if err != nil {
		return fmt.Errorf("unleash source %s: list projects: %w", u.sourceName(), err)
	}
	envs, err := src.environments(ctx)
	if err != nil {
		return fmt.Errorf("unleash source %s: list environments: %w", u.sourceName(), err)
	}
	envType := make(map[string]string, len(envs))
	for _, e := range envs {
		envType[e.Name] = e.Type
	}
	for _, p := range u.selectProjects(projects, sink) {
		if ctx.Err() != nil {
			sink.AddError(model.JoinScope(p), fmt.Errorf("unleash source %s: project %s: %w", u.sourceName(), p, ctx.Err()))
			continue
		}
		u.collectProject(ctx, src, p, envType, sink)
	}
	return nil
}

// selectProjects returns the project ids to read: the listing, or the
// configured allow-list, each of which must be listed (one that is not is
// an error at its scope: its flags cannot be said gone).
func (u *Unleash) selectProjects(listed []project, sink collectors.Sink) []string {
	have := map[string]bool{}
	var all []string
	for i, p := range listed {
		if p.ID == "" {
			sink.AddError("", fmt.Errorf("unleash source %s: %s/api/admin/projects: project %d has no id", u.sourceName(), u.where(), i))
			continue
		}
		if !have[p.ID] {
			have[p.ID] = true
			all = append(all, p.ID)
		}
	}
	if len(u.Projects) == 0 {
		return all
	}
	var out []string
	for _, p := range u.Projects {
		if !have[p] {
			sink.AddError(model.JoinScope(p), fmt.Errorf("unleash source %s: project %s: not in the project listing (a project the token cannot see, or a typo in projects)", u.sourceName(), clip(p, 100)))
			continue
		}
		out = append(out, p)
	}
	return out
}

// collectProject reads one project's flags and reports those tied to a
// backfill.
func (u *Unleash) collectProject(ctx context.Context, src api, projectID string, envType map[string]string, sink collectors.Sink) {
	scope := model.JoinScope(projectID)
	fail := func(scope string, format string, args ...any) {
		sink.AddError(scope, fmt.Errorf("unleash source %s: project %s: "+format, append([]any{u.sourceName(), clip(projectID, 100)}, args...)...))
	}
	live, err := src.flags(ctx, projectID, false)
	if err != nil {
		fail(scope, "list flags: %w", err)
		return
	}
	archived, err := src.flags(ctx, projectID, true)
	if err != nil {
		// The live flags are still reported; the unit says it did not
		// fully answer, so no archived flag is concluded gone.
		fail(scope, "list archived flags: %w", err)
	}
	var tied []*tiedFlag
	byName := map[string]*tiedFlag{}
	for i, list := range [][]flag{live, archived} {
		for j := range list {
			f := list[j]
			if f.Name == "" {
				fail(scope, "flag %d of the %s listing has no name", j, map[int]string{0: "live", 1: "archived"}[i])
				continue
			}
			if i == 1 {
				f.Archived = true
			}
			if err := f.check(); err != nil {
				fail(model.JoinScope(projectID, f.Name), "%w", err)
				continue
			}
			t, ok := u.tie(projectID, f)
			if !ok {
				continue
			}
			if prev := byName[f.Name]; prev != nil {
				// Archived while we listed: the archived entry is the later.
				*prev = t
				continue
			}
			byName[f.Name] = &t
			tied = append(tied, &t)
		}
	}
	u.readDetails(ctx, src, projectID, tied, sink)
	for _, t := range tied {
		sink.AddArtifact(u.artifact(*t, envType))
	}
}

// readDetails reads each live tied flag's detail, Concurrency at a time,
// and takes its environments (with their strategies) from it. A failed
// read is an error at the flag; the flag keeps what the listing said.
func (u *Unleash) readDetails(ctx context.Context, src api, projectID string, tied []*tiedFlag, sink collectors.Sink) {
	work := make(chan *tiedFlag)
	var wg sync.WaitGroup
	for range u.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				d, err := src.flag(ctx, projectID, t.Name)
				if err == nil && d != nil {
					err = d.check()
				}
				if err != nil {
					sink.AddError(model.JoinScope(projectID, t.Name), fmt.Errorf("unleash source %s: project %s: read flag %s: %w",
						u.sourceName(), clip(projectID, 100), clip(t.Name, 100), err))
					continue
				}
				if d != nil {
					t.Environments, t.detailed = d.Environments, true
					if d.lastSeen.After(t.lastSeen) {
						t.lastSeen = d.lastSeen
					}
				}
				if until := t.keepUntilTag(); until != "" {
					// Who set the keep tag only decorates its waiver: a
					// failed read is a note, and the flag stands as read.
					by, err := src.tagger(ctx, t.Name, model.KeepUntilKey, until)
					if err != nil {
						u.note(fmt.Sprintf("project %s: flag %s: who set its keep tag is unknown: %v", clip(projectID, 100), clip(t.Name, 100), err))
					}
					t.keepBy = by
				}
			}
		}()
	}
	for _, t := range tied {
		if !t.archived() {
			work <- t
		}
	}
	close(work)
	wg.Wait()
}
