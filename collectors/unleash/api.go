package unleash

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

// pageSize is the flags asked for per search page: the largest Unleash
// serves (a larger limit falls back to 50).
const pageSize = 100

// project is one item of GET /api/admin/projects.
type project struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type projectList struct {
	Projects []project `json:"projects"`
}

// environment is one item of GET /api/admin/environments.
type environment struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Enabled *bool  `json:"enabled"`
}

type environmentList struct {
	Environments []environment `json:"environments"`
}

// tag is a flag's tag, in the search answer and GET .../tags.
type tag struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// strategy is one activation strategy of a flag in one environment.
type strategy struct {
	Name     string `json:"name"`
	Disabled bool   `json:"disabled"`
}

// flagEnv is one environment of a flag: in the search answer (with
// hasStrategies) and in the flag's detail (with its strategies).
type flagEnv struct {
	Name       string     `json:"name"`
	Enabled    bool       `json:"enabled"`
	Type       string     `json:"type"`
	LastSeenAt *string    `json:"lastSeenAt"`
	Strategies []strategy `json:"strategies"`
}

// flag is one item of GET /api/admin/search/features, or the answer of
// GET /api/admin/projects/{p}/features/{name} (which has no tags and no
// archivedAt).
type flag struct {
	Name         string    `json:"name"`
	Type         string    `json:"type"`
	Description  string    `json:"description"`
	Project      string    `json:"project"`
	Stale        bool      `json:"stale"`
	CreatedAt    *string   `json:"createdAt"`
	LastSeenAt   *string   `json:"lastSeenAt"`
	ArchivedAt   *string   `json:"archivedAt"`
	Archived     bool      `json:"archived"`
	Environments []flagEnv `json:"environments"`
	Tags         []tag     `json:"tags"`
	CreatedBy    *struct {
		Name string `json:"name"`
	} `json:"createdBy"`

	created, lastSeen time.Time // parsed by check
	detailed          bool      // the strategies were read
}

type searchPage struct {
	Features []flag `json:"features"`
	Total    *int64 `json:"total"`
}

// check validates a flag entry and parses its times. An entry that fails
// is not understood: an error at its unit, never skipped silently.
func (f *flag) check() error {
	if f.Name == "" {
		return errors.New("a flag without a name")
	}
	var err error
	if f.CreatedAt != nil && *f.CreatedAt != "" {
		if f.created, err = parseTime(*f.CreatedAt); err != nil {
			return fmt.Errorf("flag %s: createdAt: %w", clip(f.Name, 100), err)
		}
	}
	f.lastSeen = time.Time{}
	seen := []*string{f.LastSeenAt}
	for i, e := range f.Environments {
		if e.Name == "" {
			return fmt.Errorf("flag %s: environment %d has no name", clip(f.Name, 100), i)
		}
		seen = append(seen, e.LastSeenAt)
	}
	for _, s := range seen {
		if s == nil || *s == "" {
			continue
		}
		t, err := parseTime(*s)
		if err != nil {
			return fmt.Errorf("flag %s: lastSeenAt: %w", clip(f.Name, 100), err)
		}
		if t.After(f.lastSeen) {
			f.lastSeen = t
		}
	}
	if f.ArchivedAt != nil && *f.ArchivedAt != "" {
		if _, err := parseTime(*f.ArchivedAt); err != nil {
			return fmt.Errorf("flag %s: archivedAt: %w", clip(f.Name, 100), err)
		}
	}
	return nil
}

func (f *flag) archived() bool { return f.Archived || (f.ArchivedAt != nil && *f.ArchivedAt != "") }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.IsZero() {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", clip(s, 40))
	}
	return t.UTC(), nil
}

// api is where the collector reads from: the Admin API or an export.
type api interface {
	projects(ctx context.Context) ([]project, error)
	// environments returns nil, nil when the source has no listing (an
	// export without environments.json): the flags' own types are used.
	environments(ctx context.Context) ([]environment, error)
	// hidden lists the projects that hold flags (live or archived) but are
	// not among listed, sorted.
	hidden(ctx context.Context, listed []string) ([]string, error)
	// exists returns nil when the source holds the project (one the
	// listing does not show), an error wrapping errNoProject when it
	// does not, another when it could not say.
	exists(ctx context.Context, project string) error
	// flags lists a project's live flags, or its archived ones.
	flags(ctx context.Context, project string, archived bool) ([]flag, error)
	// flag reads one flag's detail (environments with their strategies);
	// nil, nil when the source does not hold it (an export without it).
	flag(ctx context.Context, project, name string) (*flag, error)
	// tagger returns who last added the tag typ=value to flag name, as
	// the event log keeps it; "" when the source does not say (an
	// export, or no such event in the newest page).
	tagger(ctx context.Context, name, typ, value string) (string, error)
}

// httpAPI reads the Admin API with the source's client.
type httpAPI struct {
	c        *apiclient.Client
	maxPages int
}

func (h *httpAPI) projects(ctx context.Context) ([]project, error) {
	var out projectList
	if err := h.c.Get(ctx, "/api/admin/projects", nil, &out); err != nil {
		return nil, once(err)
	}
	if out.Projects == nil {
		return nil, fmt.Errorf("GET %s/api/admin/projects: the answer has no projects list", h.c.Base())
	}
	return out.Projects, nil
}

func (h *httpAPI) environments(ctx context.Context) ([]environment, error) {
	var out environmentList
	if err := h.c.Get(ctx, "/api/admin/environments", nil, &out); err != nil {
		return nil, once(err)
	}
	if out.Environments == nil {
		return nil, fmt.Errorf("GET %s/api/admin/environments: the answer has no environments list", h.c.Base())
	}
	return out.Environments, nil
}

// flags pages through GET /api/admin/search/features?project=IS:<p>,
// sorted by name, 100 a page, under a Pager bounded by max_pages. A flag
// listed twice (the listing shifted under us) is kept once.
func (h *httpAPI) flags(ctx context.Context, projectID string, archived bool) ([]flag, error) {
	q := url.Values{"project": {"IS:" + projectID}}
	if archived {
		q.Set("archived", "IS:true")
	}
	return h.search(ctx, q)
}

// maxFilterBytes bounds the project filter of the search for projects the
// listing lacks: a longer query line than a few kilobytes is refused by
// some servers and proxies, so past it the search runs unfiltered.
const maxFilterBytes = 4000

// hidden finds the projects the listing does not show: the search across
// projects (project=IS_NONE_OF:<listed>, live and archived flags) names
// each flag's project. Unleash's open-source edition lists only the
// default project however many its database holds; the search is not so
// filtered.
func (h *httpAPI) hidden(ctx context.Context, listed []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range listed {
		seen[p] = true
	}
	for _, archived := range []bool{false, true} {
		q := url.Values{}
		if f := strings.Join(listed, ","); len(listed) > 0 && len(f) <= maxFilterBytes {
			q.Set("project", "IS_NONE_OF:"+f)
		}
		if archived {
			q.Set("archived", "IS:true")
		}
		flags, err := h.search(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, f := range flags {
			if f.Project == "" {
				return nil, fmt.Errorf("GET %s/api/admin/search/features: flag %s names no project", h.c.Base(), clip(f.Name, 100))
			}
			if !seen[f.Project] {
				seen[f.Project] = true
				out = append(out, f.Project)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// exists says whether the server knows a project the listing does not
// show: GET /api/admin/projects/<p>/overview answers it (404 for none).
func (h *httpAPI) exists(ctx context.Context, projectID string) error {
	var out struct {
		Name *string `json:"name"`
	}
	path := "/api/admin/projects/" + url.PathEscape(projectID) + "/overview"
	if err := h.c.Get(ctx, path, nil, &out); err != nil {
		var se *remote.StatusError
		if errors.As(err, &se) && se.Status == http.StatusNotFound {
			return fmt.Errorf("%w (GET %s%s: HTTP 404)", errNoProject, h.c.Base(), path)
		}
		return once(err)
	}
	return nil
}

// errNoProject is a project the server does not know.
var errNoProject = errors.New("no such project")

// search pages through GET /api/admin/search/features with the filters
// in q, sorted by name, 100 a page, under a Pager bounded by max_pages. A
// flag listed twice (the listing shifted under us) is kept once; flag
// names are unique across projects.
func (h *httpAPI) search(ctx context.Context, filters url.Values) ([]flag, error) {
	const path = "/api/admin/search/features"
	q := url.Values{"sortBy": {"name"}, "sortOrder": {"asc"}, "limit": {strconv.Itoa(pageSize)}}
	for k, v := range filters {
		q[k] = v
	}
	pager := remote.Pager{What: "GET " + h.c.Base() + path + "?" + q.Encode(), Max: h.maxPages, MaxKey: "max_pages"}
	var out []flag
	seen := map[string]bool{}
	for offset := 0; ; {
		q.Set("offset", strconv.Itoa(offset))
		var page searchPage
		if err := h.c.Get(ctx, path, q, &page); err != nil {
			return nil, once(err)
		}
		if page.Features == nil {
			return nil, fmt.Errorf("%s: offset %d: the answer has no features list", pager.What, offset)
		}
		if page.Total != nil && pager.Announced == 0 {
			pager.Announced = *page.Total
		}
		names := make([]string, len(page.Features))
		for i, f := range page.Features {
			names[i] = f.Name
			if f.Name != "" && seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			out = append(out, f)
		}
		offset += len(page.Features)
		next := ""
		switch {
		case len(page.Features) == 0:
			if page.Total != nil && int64(offset) < *page.Total {
				return nil, fmt.Errorf("%s: the server announced %d flags and listed %d: the listing is incomplete", pager.What, *page.Total, offset)
			}
		case page.Total != nil:
			if int64(offset) < *page.Total {
				next = strconv.Itoa(offset)
			}
		case len(page.Features) >= pageSize:
			next = strconv.Itoa(offset)
		}
		if err := pager.Next(next, names...); err != nil {
			return nil, err
		}
		if next == "" {
			return out, nil
		}
	}
}

func (h *httpAPI) flag(ctx context.Context, projectID, name string) (*flag, error) {
	var out flag
	if err := h.c.Get(ctx, flagPath(projectID, name), nil, &out); err != nil {
		return nil, once(err)
	}
	if out.Name != name {
		return nil, fmt.Errorf("GET %s%s: the answer is not that flag", h.c.Base(), flagPath(projectID, name))
	}
	return &out, nil
}

// event is one item of GET /api/admin/search/events: a feature-tagged
// event has the tag in data and who added it in createdBy (a user's
// e-mail or name, or an API token's name).
type event struct {
	CreatedBy string `json:"createdBy"`
	Data      *tag   `json:"data"`
}

// taggedEvents is the newest page the tagger reads: a flag is tagged a
// handful of times, and a keep tag is usually recent.
const taggedEvents = 100

func (h *httpAPI) tagger(ctx context.Context, name, typ, value string) (string, error) {
	q := url.Values{"feature": {"IS:" + name}, "type": {"IS:feature-tagged"}, "limit": {strconv.Itoa(taggedEvents)}}
	var out struct {
		Events *[]event `json:"events"`
	}
	if err := h.c.Get(ctx, "/api/admin/search/events", q, &out); err != nil {
		return "", once(err)
	}
	if out.Events == nil {
		return "", fmt.Errorf("GET %s/api/admin/search/events: the answer has no events list", h.c.Base())
	}
	for _, e := range *out.Events { // newest first
		if e.Data != nil && e.Data.Type == typ && e.Data.Value == value {
			return e.CreatedBy, nil
		}
	}
	return "", nil
}

// onceErr is an error whose text names its address once: apiclient
// prefixes "GET <address>: " to an error that names it already (an HTTP
// status with its query, or net/http's Get "<address>").
type onceErr struct {
	text string
	err  error
}

func (e *onceErr) Error() string { return e.text }
func (e *onceErr) Unwrap() error { return e.err }

// once drops the leading "GET <address>: " of err when the rest names the
// address again; errors.As still finds what it wraps.
func once(err error) error {
	if err == nil {
		return nil
	}
	s := err.Error()
	method, rest, ok := strings.Cut(s, " ")
	if !ok {
		return err
	}
	addr, tail, ok := strings.Cut(rest, ": ")
	if !ok || addr == "" {
		return err
	}
	if strings.Contains(tail, method+" "+addr) || strings.Contains(tail, `Get "`+addr) {
		return &onceErr{text: tail, err: err}
	}
	return err
}

// clip puts text taken from an answer on one line, scrubbed and capped
// (redact.Line), before it goes into a message or an attribute.
func clip(s string, n int) string { return redact.Line(s, n) }
