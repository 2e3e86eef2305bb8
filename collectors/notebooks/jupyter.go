package notebooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// contentsModel is an answer of Jupyter's contents API
// (GET /api/contents/<path>?content=1): a directory with its entries (each
// without content), or a notebook with its nbformat document.
type contentsModel struct {
	Name         string          `json:"name"`
	Path         string          `json:"path"`
	Type         string          `json:"type"` // directory, notebook, file
	LastModified string          `json:"last_modified"`
	Format       string          `json:"format"`
	Content      json.RawMessage `json:"content"`
}

// contentsPath is the API path of a server path, each segment escaped.
func contentsPath(path string) string {
	path = strings.Trim(path, "/")
	if path == "" {
		return "/api/contents"
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/api/contents/" + strings.Join(segs, "/")
}

func (n *Notebooks) getContents(ctx context.Context, path, typ string) (contentsModel, error) {
	var m contentsModel
	q := url.Values{"content": {"1"}, "type": {typ}}
	err := n.client.Get(ctx, contentsPath(path), q, &m)
	return m, err
}

// findJupyter walks the server from Root for its notebooks: the top
// listing failing fails the source; a subdirectory that cannot be listed
// is an error at that directory.
func (n *Notebooks) findJupyter(ctx context.Context) error {
	top, err := n.getContents(ctx, n.Root, "directory")
	if err != nil {
		return scrubbed(fmt.Errorf("list %s: %w", orRoot(n.Root), err))
	}
	entries, err := listing(top)
	if err != nil {
		return fmt.Errorf("list %s: GET %s%s: %w", orRoot(n.Root), n.client.Base(), contentsPath(n.Root), err)
	}
	w := &jupyterWalk{n: n, found: n.found, seen: map[string]bool{}}
	w.dir(ctx, entries, 0)
	return nil
}

type jupyterWalk struct {
	n     *Notebooks
	found *units
	seen  map[string]bool
	count int
}

func (w *jupyterWalk) dir(ctx context.Context, entries []contentsModel, depth int) {
	n := w.n
	for _, e := range entries {
		if ctx.Err() != nil {
			return
		}
		p := strings.Trim(e.Path, "/")
		if p == "" || w.seen[p] || climbs(p) {
			continue
		}
		w.seen[p] = true
		switch e.Type {
		case "directory":
			if depth+1 > maxDepth {
				w.found.fail(scope(p), fmt.Errorf("deeper than %d directories; not read", maxDepth))
				continue
			}
			m, err := n.getContents(ctx, p, "directory")
			var sub []contentsModel
			if err == nil {
				if sub, err = listing(m); err != nil {
					err = fmt.Errorf("GET %s%s: %w", n.client.Base(), contentsPath(p), err)
				}
			}
			if err != nil {
				w.found.fail(scope(p), scrubbed(fmt.Errorf("list: %w", err)))
				continue
			}
			w.dir(ctx, sub, depth+1)
		case "notebook":
			w.count++
			if w.count > n.MaxNotebooks {
				if w.count == n.MaxNotebooks+1 {
					w.found.fail(scope(p), fmt.Errorf("more than max_notebooks (%d) notebooks; this one and those after it were not read", n.MaxNotebooks))
				}
				continue
			}
			w.found.notebook(ref{path: p, rel: below(p, n.Root)}, "")
		}
	}
}

// notebook reads one notebook through the contents API and emits it.
func (n *Notebooks) notebook(ctx context.Context, sink collectors.Sink, path string) error {
	m, err := n.getContents(ctx, path, "notebook")
	if err != nil {
		return withoutMessage(err, n.client.Base()+contentsPath(path))
	}
	if m.Type != "notebook" || len(m.Content) == 0 || string(m.Content) == "null" {
		return fmt.Errorf("GET %s%s: the answer is not a notebook with its content (type %q)", n.client.Base(), contentsPath(path), redact.Line(m.Type, 40))
	}
	if int64(len(m.Content)) > n.MaxNotebookBytes {
		return fmt.Errorf("GET %s%s: notebook of %d bytes, over max_notebook_bytes (%d)", n.client.Base(), contentsPath(path), len(m.Content), n.MaxNotebookBytes)
	}
	var modified time.Time
	if m.LastModified != "" {
		t, err := time.Parse(time.RFC3339Nano, m.LastModified)
		if err != nil {
			return fmt.Errorf("GET %s%s: last_modified %q is not an RFC 3339 time", n.client.Base(), contentsPath(path), redact.Line(m.LastModified, 40))
		}
		modified = t.UTC()
	}
	return n.emit(ctx, sink, ref{path: path, rel: below(path, n.Root)}, m.Content, modified)
}

// listing is a directory model's entries, sorted by path.
func listing(m contentsModel) ([]contentsModel, error) {
	if m.Type != "directory" {
		return nil, fmt.Errorf("not a directory (type %q)", redact.Line(m.Type, 40))
	}
	var entries []contentsModel
	if err := json.Unmarshal(m.Content, &entries); err != nil {
		return nil, errors.New("the directory's content is not a list of entries")
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return entries, nil
}

// below is a server path's part below root: a notebook's identity, as a
// file source whose paths entry is that directory names it.
func below(path, root string) string {
	root = strings.Trim(root, "/")
	if rest, ok := strings.CutPrefix(path, root+"/"); ok && root != "" {
		return rest
	}
	return path
}

func orRoot(p string) string {
	if strings.Trim(p, "/") == "" {
		return "the root directory"
	}
	return p
}

// withoutMessage drops the server's message from an error answer for a
// notebook: jupyter_server's message for a file it cannot read quotes the
// file's first bytes, cut at a length that can leave part of a credential
// no scanner recognises. The status stays, and whether the server could
// not read the file as a notebook.
func withoutMessage(err error, where string) error {
	var se *remote.StatusError
	if !errors.As(err, &se) || se.Summary == "" {
		return err
	}
	what := "the server's message is not shown: it can quote the notebook"
	if strings.HasPrefix(se.Summary, "Unreadable Notebook") {
		what = "Unreadable Notebook: the server cannot read it as a notebook (its message, which quotes the file, is not shown)"
	}
	return fmt.Errorf("GET %s: HTTP %d: %s", where, se.Status, what)
}

// climbs reports whether a server path has a ".." segment: an entry no
// honest server lists, which would walk out of the tree.
func climbs(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == ".." {
			return true
		}
	}
	return false
}
