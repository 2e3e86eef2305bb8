package grafana

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

// generalFolder is the top level, which Grafana's folder API does not
// list; search finds its dashboards with an empty folderUIDs.
const generalFolder = "general"

// folder is one item of GET /api/folders (FolderSearchHit).
type folder struct {
	UID       string `json:"uid"`
	Title     string `json:"title"`
	ParentUID string `json:"parentUid"`
}

// hit is one item of GET /api/search (Hit).
type hit struct {
	UID       string   `json:"uid"`
	Title     string   `json:"title"`
	Type      string   `json:"type"`
	Tags      []string `json:"tags"`
	FolderUID string   `json:"folderUid"`
	URL       string   `json:"url"`

	// file is the export file that holds it (export_dir only).
	file string
}

// answer is one dashboard's saved or live answer: GET
// /api/dashboards/uid/{uid} (DashboardFullWithMeta), the v2 resource the
// /apis API answers, or a file of an export; name is the file's ("" for
// the API), which says how to parse it.
type answer struct {
	name string
	data []byte
}

// alertRule is one item of GET /api/v1/provisioning/alert-rules
// (ProvisionedAlertRule), the part read.
type alertRule struct {
	UID         string            `json:"uid"`
	Title       string            `json:"title"`
	FolderUID   string            `json:"folderUID"`
	RuleGroup   string            `json:"ruleGroup"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	IsPaused    bool              `json:"isPaused"`
	Updated     string            `json:"updated"`
	Data        []struct {
		RefID         string          `json:"refId"`
		DatasourceUID string          `json:"datasourceUid"`
		Model         json.RawMessage `json:"model"`
	} `json:"data"`
}

// source is where the answers come from: the API or an export.
type source interface {
	// folders lists the folders under parent ("" for the root level).
	folders(ctx context.Context, parent string) ([]folder, error)
	// search lists the dashboards of a folder (folderUID set) or carrying
	// a tag (tag set).
	search(ctx context.Context, folderUID, tag string) ([]hit, error)
	// dashboard reads the dashboard a search found.
	dashboard(ctx context.Context, h hit) (answer, error)
	// alertRules lists the Grafana-managed rules; found is false when the
	// export holds none.
	alertRules(ctx context.Context) (rules []alertRule, found bool, err error)
}

// apiSource reads a live Grafana.
type apiSource struct {
	c        *apiclient.Client
	maxPages int
}

// pages reads a paged listing (limit pageSize, page 1, 2...; q holds the
// listing's own parameters) until a page comes back short. take checks
// and keeps one page's entries and returns the ids the pager checks the
// listing advances by; an error stops the listing.
func pages[T any](ctx context.Context, s *apiSource, path string, q url.Values, take func(page int, batch []T) ([]string, error)) error {
	p := &remote.Pager{What: "GET " + redact.URL(s.c.Base()+path), Max: s.maxPages, MaxKey: "max_pages"}
	q.Set("limit", strconv.Itoa(pageSize))
	for page := 1; ; page++ {
		q.Set("page", strconv.Itoa(page))
		var batch []T
		if err := s.c.Get(ctx, path, q, &batch); err != nil {
			return err
		}
		ids, err := take(page, batch)
		if err != nil {
			return err
		}
		next := ""
		if len(batch) == pageSize {
			next = strconv.Itoa(page + 1)
		}
		if err := p.Next(next, ids...); err != nil {
			return err
		}
		if next == "" {
			return nil
		}
	}
}

func (s *apiSource) folders(ctx context.Context, parent string) ([]folder, error) {
	q := url.Values{}
	if parent != "" {
		q.Set("parentUid", parent)
	}
	var out []folder
	err := pages(ctx, s, "/api/folders", q, func(page int, batch []folder) ([]string, error) {
		ids := make([]string, len(batch))
		for i, f := range batch {
			if f.UID == "" {
				return nil, fmt.Errorf("GET %s/api/folders: page %d: a folder without a uid", s.c.Base(), page)
			}
			ids[i] = f.UID
		}
		out = append(out, batch...)
		return ids, nil
	})
	return out, err
}

func (s *apiSource) search(ctx context.Context, folderUID, tag string) ([]hit, error) {
	q := url.Values{"type": {"dash-db"}}
	switch {
	case tag != "":
		q.Set("tag", tag)
	case folderUID == generalFolder:
		q.Set("folderUIDs", "") // the top level, as the API describes it
	default:
		q.Set("folderUIDs", folderUID)
	}
	var out []hit
	err := pages(ctx, s, "/api/search", q, func(page int, batch []hit) ([]string, error) {
		ids := make([]string, 0, len(batch))
		for _, h := range batch {
			if h.Type != "" && h.Type != "dash-db" {
				continue
			}
			if h.UID == "" {
				return nil, fmt.Errorf("GET %s/api/search: page %d: a dashboard without a uid", s.c.Base(), page)
			}
			ids = append(ids, h.UID)
			out = append(out, h)
		}
		return ids, nil
	})
	return out, err
}

// v2Path is the path of the /apis API that a 406 from the classic API
// names for a dashboard stored in the v2 schema: "dashboard api version not
// supported, use /apis/dashboard.grafana.app/v2beta1/namespaces/default/
// dashboards/<uid> instead" (Grafana 12 and later).
var v2Path = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`/apis/dashboard\.grafana\.app/(v2[a-z0-9]{0,20})/namespaces/([A-Za-z0-9._-]{1,253})/dashboards/([A-Za-z0-9._-]{1,253})`)
})

// dashboard reads GET /api/dashboards/uid/{uid}; a dashboard stored in the
// v2 schema, which that path refuses with 406, is read from the /apis path
// the refusal names (GET /apis/dashboard.grafana.app/<version>/namespaces/
// <namespace>/dashboards/<uid>, in Grafana's description of that API).
func (s *apiSource) dashboard(ctx context.Context, h hit) (answer, error) {
	var raw json.RawMessage
	err := s.c.Get(ctx, dashboardPath(h.UID), nil, &raw)
	var se *remote.StatusError
	if !errors.As(err, &se) || se.Status != http.StatusNotAcceptable {
		return answer{data: raw}, err
	}
	m := v2Path().FindStringSubmatch(se.Summary)
	if m == nil || m[3] != h.UID {
		return answer{}, fmt.Errorf("%w: the dashboard is stored in a schema the classic API does not serve, and the answer names no /apis path for it", err)
	}
	raw = nil
	p := "/apis/dashboard.grafana.app/" + m[1] + "/namespaces/" + url.PathEscape(m[2]) + "/dashboards/" + url.PathEscape(h.UID)
	if err := s.c.Get(ctx, p, nil, &raw); err != nil {
		return answer{}, err
	}
	return answer{data: raw}, nil
}

func (s *apiSource) alertRules(ctx context.Context) ([]alertRule, bool, error) {
	var out []alertRule
	err := s.c.Get(ctx, "/api/v1/provisioning/alert-rules", nil, &out)
	return out, err == nil, err
}

// parseTime reads an RFC 3339 time; zero when absent or unreadable
// (Grafana writes 0001-01-01 for unknown).
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() <= 1 {
		return time.Time{}
	}
	return t.UTC()
}

// clip puts text taken from an answer on one line, scrubbed and capped
// (redact.Line), before it goes into a message or an attribute.
func clip(s string, n int) string { return redact.Line(s, n) }
