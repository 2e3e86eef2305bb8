package unleash

import (
	"context"
	"fmt"
	"os"
	"strings"
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

// run is what Units found, for this run's CollectUnit calls.
type run struct {
	src      api
	envType  map[string]string  // environment name -> type
	projects map[string]*toRead // by unit
	// whole are errors of the whole source met while listing the
	// projects; the first unit read reports them.
	whole []error
}

// Units are the projects: those named in projects, else the listed ones
// and those the flag search across projects finds beyond the listing. A
// failure to list the projects or the environments fails the source. An
// Unleash holding no project is read whole, and answers empty.
func (u *Unleash) Units(ctx context.Context) ([]string, error) {
	u.mu.Lock()
	u.notes, u.read = nil, nil
	u.mu.Unlock()
	u.run = nil
	src, err := u.open()
	if err != nil {
		return nil, fmt.Errorf("unleash source %s: %w", u.env.Source, err)
	}
	projects, err := src.projects(ctx)
	if err != nil {
		return nil, fmt.Errorf("unleash source %s: list projects: %w", u.env.Source, err)
	}
	envs, err := src.environments(ctx)
	if err != nil {
		return nil, fmt.Errorf("unleash source %s: list environments: %w", u.env.Source, err)
	}
	r := &run{src: src, envType: make(map[string]string, len(envs)), projects: map[string]*toRead{}}
	for _, e := range envs {
		r.envType[e.Name] = e.Type
	}
	var units []string
	for _, p := range u.selectProjects(ctx, r, projects) {
		scope := model.JoinScope(p.id)
		r.projects[scope] = &p
		units = append(units, scope)
	}
	if len(units) == 0 {
		units = []string{""}
	}
	u.run = r
	u.mu.Lock()
	u.read = []string{}
	u.mu.Unlock()
	return units, nil
}

// CollectUnit reads one project's live and archived flags (a failure of
// the live listing fails the project), keeps the flags tied to a backfill
// and reads each live one's detail for its strategies (a failure is an
// error at the flag, which is still reported from the listing).
func (u *Unleash) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	r := u.run
	for _, err := range r.whole {
		sink.AddError("", err)
	}
	r.whole = nil // reported once
	p := r.projects[unit]
	if p == nil { // no project: the whole source, read empty
		sink.AddRead(unit, "projects", 0, 0)
		return nil
	}
	if p.how == foundByConfig {
		if err := r.src.exists(ctx, p.id); err != nil {
			return fmt.Errorf("unleash source %s: project %s: not in the project listing, and %w (a typo in projects, or a project the token cannot read)",
				u.env.Source, clip(p.id, 100), err)
		}
	}
	n, err := u.collectProject(ctx, r, p.id, sink)
	if err != nil {
		return err
	}
	sink.AddRead(unit, "projects", 1, 0)
	u.mu.Lock()
	u.read = append(u.read, fmt.Sprintf("%s (%d flags%s)", clip(p.id, 100), n, p.how))
	u.mu.Unlock()
	return nil
}

// maxNotedProjects caps the projects the note names.
const maxNotedProjects = 50

func projectsNote(read []string) string {
	if len(read) == 0 {
		return "projects read: none"
	}
	more := ""
	if len(read) > maxNotedProjects {
		more = fmt.Sprintf(" and %d more", len(read)-maxNotedProjects)
		read = read[:maxNotedProjects]
	}
	return "projects read: " + strings.Join(read, ", ") + more
}

// toRead is a project to read and, for one the listing lacks, how it was
// found (for the note).
type toRead struct{ id, how string }

const (
	foundBySearch = "; not in the project listing, found through the flag search"
	foundByConfig = "; not in the project listing, named in projects"
)

// selectProjects returns the projects to read. Without projects: the
// listing, and the projects the search across projects finds that it
// lacks (a failed search is an error at the whole source: flags of a
// project it would have found cannot be said gone). With projects: those;
// one the listing lacks must be known to the server, which its unit asks.
func (u *Unleash) selectProjects(ctx context.Context, r *run, listed []project) []toRead {
	have := map[string]bool{}
	var all []string
	for i, p := range listed {
		if p.ID == "" {
			r.whole = append(r.whole, fmt.Errorf("unleash source %s: %s/api/admin/projects: project %d has no id", u.env.Source, u.where(), i))
			continue
		}
		if !have[p.ID] {
			have[p.ID] = true
			all = append(all, p.ID)
		}
	}
	var out []toRead
	if len(u.Projects) == 0 {
		for _, p := range all {
			out = append(out, toRead{id: p})
		}
		more, err := r.src.hidden(ctx, all)
		if err != nil {
			r.whole = append(r.whole, fmt.Errorf("unleash source %s: find the projects the project listing lacks: %w", u.env.Source, err))
		}
		for _, p := range more {
			out = append(out, toRead{id: p, how: foundBySearch})
		}
		return out
	}
	named := map[string]bool{}
	for _, p := range u.Projects {
		if named[p] {
			continue
		}
		named[p] = true
		if have[p] {
			out = append(out, toRead{id: p})
		} else {
			out = append(out, toRead{id: p, how: foundByConfig})
		}
	}
	return out
}

// collectProject reads one project's flags and reports those tied to a
// backfill. It returns how many flags the project's search listed, or the
// live listing's failure.
func (u *Unleash) collectProject(ctx context.Context, r *run, projectID string, sink collectors.Sink) (int, error) {
	scope := model.JoinScope(projectID)
	wrap := func(format string, args ...any) error {
		return fmt.Errorf("unleash source %s: project %s: "+format, append([]any{u.env.Source, clip(projectID, 100)}, args...)...)
	}
	fail := func(scope string, format string, args ...any) { sink.AddError(scope, wrap(format, args...)) }
	src := r.src
	live, err := src.flags(ctx, projectID, false)
	if err != nil {
		return 0, wrap("list flags: %w", err)
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
	detailed := u.readDetails(ctx, src, projectID, tied, sink)
	for _, t := range tied {
		sink.AddArtifact(u.artifact(*t, r.envType))
	}
	// Each flag whose detail was read says so at its own unit (only in
	// part when that read failed); the project counts the others.
	n := len(live) + len(archived)
	sink.AddRead(scope, "flags", n-detailed, 0)
	return n, nil
}

// readDetails reads each live tied flag's detail, Concurrency at a time,
// and takes its environments (with their strategies) from it. A failed
// read is an error at the flag; the flag keeps what the listing said, and
// is read only in part. Each flag's read is recorded at its unit; it
// returns how many flags it read.
func (u *Unleash) readDetails(ctx context.Context, src api, projectID string, tied []*tiedFlag, sink collectors.Sink) int {
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
				unit := model.JoinScope(projectID, t.Name)
				if err != nil {
					sink.AddError(unit, fmt.Errorf("unleash source %s: project %s: read flag %s: %w",
						u.env.Source, clip(projectID, 100), clip(t.Name, 100), err))
					sink.AddRead(unit, "flags", 1, 1)
					continue
				}
				sink.AddRead(unit, "flags", 1, 0)
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
	n := 0
	for _, t := range tied {
		if !t.archived() {
			work <- t
			n++
		}
	}
	close(work)
	wg.Wait()
	return n
}
