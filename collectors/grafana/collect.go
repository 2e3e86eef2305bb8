package grafana

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// search: the folder is listed and wanted, so its search finds its
	// dashboards; else it is read for what the tag searches or the rule
	// listing found in it.
	search bool
	hits   []hit // the dashboards the tag searches found in it
	err    error // its subfolders could not be listed
	// unknown: named in folders, it matches no folder of the listing.
	unknown bool
}

// run is what Units found, for this run's CollectUnit calls: the folder
// units by scope, the rules listing, and errors of the whole source that
// the first unit read reports.
type run struct {
	src    source
	dir    string // export_dir read as a folder of dashboard files, when it is one
	units  map[string]*unit
	titles map[string]string

	rules      []alertRule // sorted by uid
	rulesFound bool
	rulesErr   error

	whole []error
	seen  map[string]string // dashboard uids reported, with their file
}

func folderScope(uid string) string {
	if uid == "" {
		uid = generalFolder
	}
	return model.JoinScope(uid)
}

// Units are the folders: the listed ones (folders, when set, limits
// them; a name there that matches none is a unit that fails), those the
// tag searches find a dashboard in, and those holding a wanted alert
// rule. The root folder listing failing fails the source; a folder of
// dashboard files (export_dir without saved answers) is read whole.
func (g *Grafana) Units(ctx context.Context) ([]string, error) {
	g.notes = &notes{}
	r := &run{src: g.src, units: map[string]*unit{}, titles: map[string]string{generalFolder: "General"}, seen: map[string]string{}}
	g.run = r
	if g.ExportDir != "" {
		dir := g.env.Path(g.ExportDir)
		if !hasSavedAnswers(dir) {
			r.dir = dir
			return []string{""}, nil
		}
		r.src = newDirSource(dir)
	}
	if r.src == nil {
		return nil, fmt.Errorf("grafana source %s: not initialised (Init was not called)", g.env.Source)
	}
	folders, unlisted, err := g.listFolders(ctx, r.src)
	if err != nil {
		return nil, fmt.Errorf("grafana source %s: list folders: %w", g.env.Source, err)
	}
	for _, f := range folders {
		r.titles[f.UID] = f.Title
	}
	var order []string
	addUnit := func(uid string) *unit {
		if uid == "" {
			uid = generalFolder
		}
		scope := folderScope(uid)
		u, ok := r.units[scope]
		if !ok {
			u = &unit{uid: uid, title: r.titles[uid]}
			r.units[scope] = u
			order = append(order, scope)
		}
		return u
	}
	all := append([]folder{{UID: generalFolder, Title: "General"}}, folders...)
	for _, f := range all {
		if g.wanted(f) {
			addUnit(f.UID).search = true
		}
	}
	for _, w := range g.Folders {
		if !slices.ContainsFunc(all, func(f folder) bool { return w == f.UID || strings.EqualFold(w, f.Title) }) {
			addUnit(w).unknown = true
		}
	}
	if len(g.Folders) > 0 {
		// Dashboards carrying a configured tag are read wherever they are.
		for _, tag := range g.Tags {
			hits, err := r.src.search(ctx, "", tag)
			if err != nil {
				r.whole = append(r.whole, fmt.Errorf("grafana source %s: search dashboards tagged %q: %w", g.env.Source, clip(tag, 80), err))
				continue
			}
			for _, h := range hits {
				u := addUnit(h.FolderUID)
				if !hasHit(u.hits, h.UID) {
					u.hits = append(u.hits, h)
				}
			}
		}
	}
	// The rules are listed once for every folder; a failure is each
	// folder's, since it leaves each folder's rules unknown.
	r.rules, r.rulesFound, r.rulesErr = r.src.alertRules(ctx)
	sort.SliceStable(r.rules, func(i, j int) bool { return r.rules[i].UID < r.rules[j].UID })
	for _, rule := range r.rules {
		if fu := ruleFolder(rule); g.wanted(folder{UID: fu, Title: r.titles[fu]}) {
			addUnit(fu)
		}
	}
	for _, f := range folders {
		if err := unlisted[f.UID]; err != nil {
			addUnit(f.UID).err = err
		}
	}
	return order, nil
}

// ruleFolder is the folder an alert rule is in.
func ruleFolder(r alertRule) string {
	if r.FolderUID == "" {
		return generalFolder
	}
	return r.FolderUID
}

// CollectUnit reads one folder: searches its dashboards (a failure fails
// the folder, whose dashboards the tag searches found are still read),
// reads each dashboard (a failure is that dashboard's), and emits its
// alert rules, each that is tied or reads something tied.
func (g *Grafana) CollectUnit(ctx context.Context, scope string, sink collectors.Sink) error {
	r := g.run
	for _, err := range r.whole {
		sink.AddError("", err)
	}
	r.whole = nil // reported once
	s := &saying{Sink: sink}
	if r.dir != "" {
		err := g.collectFiles(ctx, r.dir, s)
		if err == nil && s.said == 0 {
			sink.AddRead("", "dashboards", 0, 0) // the folder holds none
		}
		return err
	}
	u := r.units[scope]
	if u.err != nil {
		s.AddError(scope, u.err)
	}
	hits, failed := u.hits, error(nil)
	if u.unknown {
		failed = fmt.Errorf("grafana source %s: folder %s: not in the folder listing (a typo in folders, or a folder the token cannot read)",
			g.env.Source, clip(u.uid, 80))
	}
	if u.search {
		found, err := r.src.search(ctx, u.uid, "")
		if err != nil {
			failed = fmt.Errorf("grafana source %s: folder %s: search dashboards: %w", g.env.Source, clip(u.title, 80), err)
		} else {
			hits = found // the tagged dashboards of a folder are among its own
		}
	}
	g.readDashboards(ctx, r, s, u, hits)
	g.readAlertRules(r, s, u)
	if failed == nil && s.said == 0 {
		sink.AddRead(scope, "dashboards", 0, 0) // the folder holds none
	}
	return failed
}

// saying counts what a unit said (reads and errors), so that one which
// found nothing can say it read none. Units are read one at a time, and
// each emits from one goroutine.
type saying struct {
	collectors.Sink
	said int
}

func (s *saying) AddRead(scope, what string, n, partial int) {
	s.said++
	s.Sink.AddRead(scope, what, n, partial)
}

func (s *saying) AddError(scope string, err error) {
	s.said++
	s.Sink.AddError(scope, err)
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
// failure fails the source; a child listing's is the parent folder's, in
// unlisted by the parent's uid.
func (g *Grafana) listFolders(ctx context.Context, src source) (out []folder, unlisted map[string]error, err error) {
	root, err := src.folders(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{generalFolder: true}
	unlisted = map[string]error{}
	queue := []folder{}
	for _, f := range root {
		if !seen[f.UID] {
			seen[f.UID] = true
			out = append(out, f)
			queue = append(queue, f)
		}
	}
	if _, isDir := src.(*dirSource); isDir {
		return out, unlisted, nil // an export lists every folder at once
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		kids, err := src.folders(ctx, f.UID)
		if err != nil {
			unlisted[f.UID] = fmt.Errorf("grafana source %s: folder %s: list subfolders: %w", g.env.Source, clip(f.Title, 80), err)
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
	return out, unlisted, nil
}

// readDashboards reads a folder's dashboards, Concurrency at a time, and
// emits in a stable order. Each dashboard is a scope under its folder:
// what it read (a dashboard, in part when a panel's queries could not be
// read) and, when its model cannot be read, its error.
func (g *Grafana) readDashboards(ctx context.Context, r *run, sink collectors.Sink, u *unit, hits []hit) {
	type result struct {
		ans answer
		dec decoded
		err error
	}
	src := r.src
	results := make([]result, len(hits))
	sem := make(chan struct{}, g.Concurrency)
	var wg sync.WaitGroup
	for i, h := range hits {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ans, err := src.dashboard(ctx, h)
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
	for i, res := range results {
		h := hits[i]
		scope := model.JoinScope(u.uid, h.UID)
		fail := func(err error) {
			sink.AddError(scope, fmt.Errorf("grafana source %s: dashboard %s: %w", g.env.Source, clip(h.UID, 80), err))
		}
		if res.err != nil {
			fail(res.err)
			continue
		}
		if err := res.dec.err(); err != nil {
			if res.ans.name != "" {
				err = fmt.Errorf("%s: %w", res.ans.name, err)
			}
			fail(err)
		}
		if len(res.dec.boards) == 0 && len(res.dec.errs) == 0 {
			if !fromFiles {
				fail(errors.New("the answer holds no dashboard"))
			} else {
				g.notes.skip(res.ans.name, res.dec)
			}
			continue
		}
		g.notes.elsewhere(res.ans.name, res.dec)
		sink.AddRead(scope, "dashboards", len(res.dec.boards), res.dec.partial())
		for n, b := range res.dec.boards {
			uid := h.UID // the API's key
			if fromFiles {
				uid = boardUID(b, h.UID, n, len(res.dec.boards))
			}
			// An export may hold one uid in two folders: the run reports
			// it once.
			if first, dup := r.seen[uid]; dup {
				g.notes.duplicate(uid, first, res.ans.name)
				continue
			}
			r.seen[uid] = res.ans.name
			if art := g.boardArtifact(scope, uid, u.title, h, b); art != nil {
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

// readAlertRules emits the alert rules of a folder whose rules are read:
// one listed in folders (or any, when folders is not set), or one the tag
// searches read. The listing's failure is the folder's.
func (g *Grafana) readAlertRules(r *run, sink collectors.Sink, u *unit) {
	scope := folderScope(u.uid)
	if len(u.hits) == 0 && !g.wanted(folder{UID: u.uid, Title: r.titles[u.uid]}) {
		return
	}
	if r.rulesErr != nil {
		sink.AddError(scope, fmt.Errorf("grafana source %s: list alert rules: %w", g.env.Source, r.rulesErr))
		return
	}
	if !r.rulesFound {
		return
	}
	for _, rule := range r.rules {
		if ruleFolder(rule) != u.uid {
			continue
		}
		if rule.UID == "" {
			sink.AddError(scope, fmt.Errorf("grafana source %s: alert rule %q without a uid", g.env.Source, clip(rule.Title, 80)))
			continue
		}
		art, unread := g.ruleArtifact(rule, r.titles[u.uid])
		partial := 0
		if unread > 0 {
			partial = 1
		}
		sink.AddRead(scope, "alert rules", 1, partial)
		if art != nil {
			sink.AddArtifact(*art)
		}
	}
}
