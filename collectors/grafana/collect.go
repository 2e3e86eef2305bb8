package grafana

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// unit is one folder: its dashboards and alert rules fail together when
// its search fails.
type unit struct {
	uid, title string
	hits       []hit
}

func folderScope(uid string) string {
	if uid == "" {
		uid = generalFolder
	}
	return model.JoinScope(uid)
}

// Collect lists the folders (a failure fails the source), searches each
// folder's dashboards (a failure is that folder's), reads each dashboard
// (a failure is that dashboard's), then the alert rules, and emits what is
// tied or reads something tied.
func (g *Grafana) Collect(ctx context.Context, sink collectors.Sink) error {
	g.notes = &notes{}
	src := g.src
	if g.ExportDir != "" {
		dir := g.exportDir()
		if !hasSavedAnswers(dir) {
			return g.collectFiles(ctx, dir, sink)
		}
		src = newDirSource(dir)
	}
	if src == nil {
		return fmt.Errorf("grafana source %s: not initialised (Init was not called)", g.sourceName())
	}
	folders, err := g.listFolders(ctx, src, sink)
	if err != nil {
		return fmt.Errorf("grafana source %s: list folders: %w", g.sourceName(), err)
	}
	titles := map[string]string{generalFolder: "General"}
	for _, f := range folders {
		titles[f.UID] = f.Title
	}
	units := map[string]*unit{}
	var order []string
	addUnit := func(uid string) *unit {
		if uid == "" {
			uid = generalFolder
		}
		u, ok := units[uid]
		if !ok {
			u = &unit{uid: uid, title: titles[uid]}
			units[uid] = u
			order = append(order, uid)
		}
		return u
	}
	searched := map[string]bool{}
	for _, f := range append([]folder{{UID: generalFolder, Title: "General"}}, folders...) {
		if !g.wanted(f) {
			continue
		}
		u := addUnit(f.UID)
		hits, err := src.search(ctx, f.UID, "")
		if err != nil {
			sink.AddError(folderScope(f.UID), fmt.Errorf("grafana source %s: folder %s: search dashboards: %w", g.sourceName(), clip(f.Title, 80), err))
			continue
		}
		searched[f.UID] = true
		u.hits = append(u.hits, hits...)
	}
	if len(g.Folders) > 0 {
		// Dashboards carrying a configured tag are read wherever they are.
		for _, tag := range g.Tags {
			hits, err := src.search(ctx, "", tag)
			if err != nil {
				sink.AddError("", fmt.Errorf("grafana source %s: search dashboards tagged %q: %w", g.sourceName(), clip(tag, 80), err))
				continue
			}
			for _, h := range hits {
				fu := h.FolderUID
				if fu == "" {
					fu = generalFolder
				}
				if searched[fu] {
					continue // read with its folder
				}
				u := addUnit(fu)
				if !hasHit(u.hits, h.UID) {
					u.hits = append(u.hits, h)
				}
			}
		}
	}
	g.readDashboards(ctx, src, sink, units, order)
	g.readAlertRules(ctx, src, sink, titles, units, order)
	return nil
}

func hasHit(hs []hit, uid string) bool {
	for _, h := range hs {
		if h.UID == uid {
			return true
		}
	}
	return false
}

// wanted applies the folders allow-list (uid or title).
func (g *Grafana) wanted(f folder) bool {
	if len(g.Folders) == 0 {
		return true
	}
	for _, w := range g.Folders {
		if w == f.UID || strings.EqualFold(w, f.Title) {
			return true
		}
	}
	return false
}

// listFolders lists every folder, nested ones included (each folder's
// children are listed with parentUid; a Grafana without nested folders
// answers the root level again, which adds nothing). The root listing's
// failure fails the source; a child listing's is the parent folder's.
func (g *Grafana) listFolders(ctx context.Context, src source, sink collectors.Sink) ([]folder, error) {
	root, err := src.folders(ctx, "")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{generalFolder: true}
	var out []folder
	queue := []folder{}
	for _, f := range root {
		if !seen[f.UID] {
			seen[f.UID] = true
			out = append(out, f)
			queue = append(queue, f)
		}
	}
	if _, isDir := src.(*dirSource); isDir {
		return out, nil // an export lists every folder at once
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		kids, err := src.folders(ctx, f.UID)
		if err != nil {
			sink.AddError(folderScope(f.UID), fmt.Errorf("grafana source %s: folder %s: list subfolders: %w", g.sourceName(), clip(f.Title, 80), err))
			continue
		}
		for _, k := range kids {
			if !seen[k.UID] {
				seen[k.UID] = true
				out = append(out, k)
				queue = append(queue, k)
			}
		}
	}
	return out, nil
}

// readDashboards reads every dashboard found, Concurrency at a time, and
// emits in a stable order. Each dashboard is its unit: what it read (a
// dashboard, in part when a panel's queries could not be read) and, when
// its model cannot be read, its error.
func (g *Grafana) readDashboards(ctx context.Context, src source, sink collectors.Sink, units map[string]*unit, order []string) {
	type job struct {
		u *unit
		h hit
	}
	type result struct {
		ans answer
		dec decoded
		err error
	}
	var jobs []job
	for _, uid := range order {
		for _, h := range units[uid].hits {
			jobs = append(jobs, job{units[uid], h})
		}
	}
	results := make([]result, len(jobs))
	sem := make(chan struct{}, g.Concurrency)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ans, err := src.dashboard(ctx, j.h)
			if err != nil {
				results[i] = result{err: err}
				return
			}
			dec, err := decodeDocs(ans.name, ans.data)
			if err != nil && ans.name != "" {
				err = fmt.Errorf("%s: %w", ans.name, err)
			}
			results[i] = result{ans: ans, dec: dec, err: err}
		}()
	}
	wg.Wait()
	_, fromFiles := src.(*dirSource)
	seen := map[string]string{}
	for i, r := range results {
		j := jobs[i]
		scope := model.JoinScope(j.u.uid, j.h.UID)
		fail := func(err error) {
			sink.AddError(scope, fmt.Errorf("grafana source %s: dashboard %s: %w", g.sourceName(), clip(j.h.UID, 80), err))
		}
		if r.err != nil {
			fail(r.err)
			continue
		}
		if err := r.dec.err(); err != nil {
			if r.ans.name != "" {
				err = fmt.Errorf("%s: %w", r.ans.name, err)
			}
			fail(err)
		}
		if len(r.dec.boards) == 0 && len(r.dec.errs) == 0 {
			if !fromFiles {
				fail(errors.New("the answer holds no dashboard"))
			} else {
				g.notes.skip(r.ans.name, r.dec)
			}
			continue
		}
		g.notes.elsewhere(r.ans.name, r.dec)
		sink.AddRead(scope, "dashboards", len(r.dec.boards), r.dec.partial())
		for n, b := range r.dec.boards {
			uid := j.h.UID // the API's key
			if fromFiles {
				uid = boardUID(b, j.h.UID, n, len(r.dec.boards))
			}
			if first, dup := seen[uid]; dup {
				g.notes.duplicate(uid, first, r.ans.name)
				continue
			}
			seen[uid] = r.ans.name
			if art := g.boardArtifact(scope, uid, j.u.title, j.h, b); art != nil {
				sink.AddArtifact(*art)
			}
		}
	}
}

// boardUID is a board's uid: its model's, else the name it is known by
// (numbered when a file holds several boards without one).
func boardUID(b board, key string, n, of int) string {
	if b.UID != "" {
		return clip(b.UID, 200)
	}
	if of > 1 {
		return key + "-" + strconv.Itoa(n+1)
	}
	return key
}

// readAlertRules lists the Grafana-managed rules once; a failure is every
// folder's read, since it leaves each folder's rules unknown.
func (g *Grafana) readAlertRules(ctx context.Context, src source, sink collectors.Sink, titles map[string]string, units map[string]*unit, order []string) {
	rules, found, err := src.alertRules(ctx)
	if err != nil {
		for _, uid := range order {
			sink.AddError(folderScope(uid), fmt.Errorf("grafana source %s: list alert rules: %w", g.sourceName(), err))
		}
		return
	}
	if !found {
		return
	}
	sort.SliceStable(rules, func(i, j int) bool { return rules[i].UID < rules[j].UID })
	for _, r := range rules {
		fu := r.FolderUID
		if fu == "" {
			fu = generalFolder
		}
		if _, read := units[fu]; !read && !g.wanted(folder{UID: fu, Title: titles[fu]}) {
			continue
		}
		if r.UID == "" {
			sink.AddError(folderScope(fu), fmt.Errorf("grafana source %s: alert rule %q without a uid", g.sourceName(), clip(r.Title, 80)))
			continue
		}
		art, unread := g.ruleArtifact(r, titles[fu])
		partial := 0
		if unread > 0 {
			partial = 1
		}
		sink.AddRead(folderScope(fu), "alert rules", 1, partial)
		if art != nil {
			sink.AddArtifact(*art)
		}
	}
}
