package airflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// httpAPI reads Airflow's stable REST API, /api/v1 or /api/v2.
type httpAPI struct {
	c       *Airflow
	version string // versionV1 or versionV2

	mu     sync.Mutex
	bearer string // v2: the JWT from /auth/token, or the configured token

	// slots holds one token per call in flight: at most concurrency in
	// total, however many listings and DAGs are read at once.
	slots chan struct{}
	// calls and spent count the calls made and their summed time, for
	// the budget projection.
	calls, spent atomic.Int64
	// listed hears the pages each listing's first page projects.
	listed func(listing string, pages int)
	note   func(string)
}

func newHTTPAPI(c *Airflow, version string) *httpAPI {
	return &httpAPI{c: c, version: version, bearer: c.token, slots: make(chan struct{}, max(c.Concurrency, 1))}
}

// latency is the mean time a call took so far; 0 before any.
func (a *httpAPI) latency() time.Duration {
	if n := a.calls.Load(); n > 0 {
		return time.Duration(a.spent.Load() / n)
	}
	return 0
}

// spec fills in what every listing of this API shares.
func spec[T any](a *httpAPI, what string, key func(T) string, fetch func(ctx context.Context, offset, limit int) ([]T, int, error)) pageSpec[T] {
	return pageSpec[T]{what: "GET " + a.prefix() + what, limit: a.c.PageSize, maxPages: a.c.MaxPages,
		par: a.c.Concurrency, key: key, fetch: fetch, note: a.note}
}

func (a *httpAPI) prefix() string { return "/api/v" + a.version }

// detectVersion asks the unauthenticated version endpoints which API the
// server speaks: Airflow 3 answers /api/v2/version, Airflow 2 only /api/v1.
func detectVersion(ctx context.Context, c *Airflow) (string, error) {
	probe := func(version string) error {
		a := newHTTPAPI(c, version)
		var v versionInfo
		return a.get(ctx, "/version", nil, &v)
	}
	errV2 := probe(versionV2)
	if errV2 == nil {
		return versionV2, nil
	}
	if !isStatus(errV2, http.StatusNotFound) {
		return "", fmt.Errorf("detect API version: %w", errV2)
	}
	errV1 := probe(versionV1)
	if errV1 == nil || isStatus(errV1, http.StatusUnauthorized) || isStatus(errV1, http.StatusForbidden) {
		return versionV1, nil
	}
	return "", fmt.Errorf("detect API version: neither /api/v2 (%v) nor /api/v1 (%v) answered", errV2, errV1)
}

// versionInfo is the answer of GET /version.
type versionInfo struct {
	Version string `json:"version"`
}

func (v *versionInfo) check() error { return nil }

// get calls GET prefix+path and decodes the JSON answer into out. On
// Airflow 3, a 401 with a token we minted refreshes the token once: only
// the token that was refused is dropped, so calls refused at once (units
// run concurrently) mint one new token between them, not one each.
func (a *httpAPI) get(ctx context.Context, path string, q url.Values, out checker) error {
	a.mu.Lock()
	sent := a.bearer
	minted := a.version == versionV2 && a.c.token == "" && sent != ""
	a.mu.Unlock()
	err := a.call(ctx, path, q, out)
	if minted && isStatus(err, http.StatusUnauthorized) {
		a.mu.Lock()
		if a.bearer == sent {
			a.bearer = ""
		}
		a.mu.Unlock()
		err = a.call(ctx, path, q, out)
	}
	return err
}

// call makes one call once a slot is free, and times it.
func (a *httpAPI) call(ctx context.Context, path string, q url.Values, out checker) error {
	select {
	case a.slots <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-a.slots }()
	sw := remote.StartStopwatch()
	err := a.getOnce(ctx, path, q, out)
	a.calls.Add(1)
	a.spent.Add(int64(sw.Elapsed()))
	return err
}

func (a *httpAPI) getOnce(ctx context.Context, path string, q url.Values, out checker) error {
	resp, err := a.send(ctx, http.MethodGet, path, q, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := remote.ReadAll(resp.Body, maxAnswerBytes)
	if err == nil {
		err = decodeAnswer(body, out)
	}
	if err != nil {
		return fmt.Errorf("GET %s%s: %w", a.prefix(), path, err)
	}
	return nil
}

// send makes one call of prefix+path with the source's credentials: the
// reads' GETs, and the fix actor's PATCH and DELETE, whose caller reads
// and closes the answer.
func (a *httpAPI) send(ctx context.Context, method, path string, q url.Values, body []byte) (*http.Response, error) {
	auth, err := a.authHeader(ctx, path)
	if err != nil {
		return nil, err
	}
	target := a.c.URL + a.prefix() + path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	return remote.Send(ctx, a.c.HTTPClient, a.c.Retry, remote.Call{Method: method, URL: target, Body: body, Auth: auth})
}

// authHeader returns the Authorization header for a call: basic auth on
// Airflow 2, a bearer token on Airflow 3 (minted on first use). The
// version probe is sent without credentials on v2, where it is public.
func (a *httpAPI) authHeader(ctx context.Context, path string) (string, error) {
	switch {
	case a.c.token != "":
		return "Bearer " + a.c.token, nil
	case a.c.password == "":
		return "", nil
	case a.version == versionV1:
		return remote.BasicAuth(a.c.Username, a.c.password), nil
	case path == "/version":
		return "", nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bearer == "" {
		tok, err := a.mintToken(ctx)
		if err != nil {
			return "", err
		}
		a.bearer = tok
	}
	return "Bearer " + a.bearer, nil
}

// maxTokenAnswer caps the answer of POST /auth/token: a JWT or two.
const maxTokenAnswer = 1 << 20

// mintToken exchanges username and password for a JWT (POST /auth/token,
// Airflow 3's simple and FAB auth managers).
func (a *httpAPI) mintToken(ctx context.Context) (string, error) {
	body, err := json.Marshal(map[string]string{"username": a.c.Username, "password": a.c.password})
	if err != nil {
		return "", err
	}
	resp, err := remote.Send(ctx, a.c.HTTPClient, a.c.Retry, remote.Call{Method: http.MethodPost, URL: a.c.URL + "/auth/token", Body: body})
	if err != nil {
		return "", fmt.Errorf("get a token: %w", err)
	}
	defer resp.Body.Close()
	var tr tokenResponse
	if err := remote.DecodeJSON(resp.Body, maxTokenAnswer, &tr); err != nil || tr.AccessToken == "" {
		// Never the body: it may echo the password sent.
		return "", fmt.Errorf("get a token: POST /auth/token answered without an access_token")
	}
	return tr.AccessToken, nil
}

func (a *httpAPI) listDAGs(ctx context.Context) ([]dagJSON, error) {
	sp := spec(a, "/dags", dagKey, func(ctx context.Context, offset, limit int) ([]dagJSON, int, error) {
		q := pageQuery(offset, limit)
		// Stale (v2) / inactive (v1) DAGs are listed too: their metadata
		// is still in the scheduler and may be lingering machinery.
		if a.version == versionV1 {
			q.Set("only_active", "false")
		} else {
			q.Set("exclude_stale", "false")
		}
		var page dagCollection
		err := a.get(ctx, "/dags", q, &page)
		return page.DAGs, page.TotalEntries, err
	})
	sp.first = a.projects("DAGs")
	return pageAll(ctx, sp)
}

// projects tells the budget projection how many pages a listing takes.
func (a *httpAPI) projects(listing string) func(int) {
	if a.listed == nil {
		return nil
	}
	return func(pages int) { a.listed(listing, pages) }
}

func (a *httpAPI) dagDetails(ctx context.Context, dagID string) (*dagJSON, error) {
	var d dagJSON
	err := a.get(ctx, "/dags/"+url.PathEscape(dagID)+"/details", nil, &d)
	if isStatus(err, http.StatusNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &d, nil
}

func (a *httpAPI) dagTasks(ctx context.Context, dagID string) ([]taskJSON, error) {
	var tc taskCollection
	err := a.get(ctx, "/dags/"+url.PathEscape(dagID)+"/tasks", nil, &tc)
	if isStatus(err, http.StatusNotFound) {
		return nil, nil
	}
	return tc.Tasks, err
}

// listRuns lists the runs of one DAG, or across DAGs with the `~` dag id.
// Airflow 3 filters by run_type on the server; Airflow 2 cannot, so it is
// bounded by updated_at_gte (Airflow 2.6+) and filtered here.
func (a *httpAPI) listRuns(ctx context.Context, dagID string, f runFilter) ([]dagRunJSON, error) {
	path := "/dags/" + url.PathEscape(dagID) + "/dagRuns"
	if dagID == allDAGs {
		path = "/dags/~/dagRuns"
	}
	sp := spec(a, path, runKey, func(ctx context.Context, offset, limit int) ([]dagRunJSON, int, error) {
		q := pageQuery(offset, limit)
		for _, s := range f.states {
			q.Add("state", s)
		}
		if a.version == versionV2 && f.runType != "" {
			q.Add("run_type", f.runType)
		}
		if a.version == versionV1 && !f.updatedAfter.IsZero() {
			q.Set("updated_at_gte", f.updatedAfter.UTC().Format(time.RFC3339))
		}
		var page dagRunCollection
		err := a.get(ctx, path, q, &page)
		return page.DagRuns, page.TotalEntries, err
	})
	// Each page is filtered as it arrives: Airflow 2 lists every run of
	// the lookback, and only the backfill ones are held.
	sp.keep = f.keep
	if dagID == allDAGs {
		sp.first = a.projects("runs")
	}
	return pageAll(ctx, sp)
}

func (a *httpAPI) listBackfills(ctx context.Context, dagID string) ([]backfillJSON, bool, error) {
	if a.version != versionV2 {
		return nil, false, nil
	}
	bs, err := pageAll(ctx, spec(a, "/backfills?dag_id="+url.QueryEscape(dagID), backfillKey, func(ctx context.Context, offset, limit int) ([]backfillJSON, int, error) {
		q := pageQuery(offset, limit)
		q.Set("dag_id", dagID)
		var page backfillCollection
		err := a.get(ctx, "/backfills", q, &page)
		return page.Backfills, page.TotalEntries, err
	}))
	return bs, true, err
}

func pageQuery(offset, limit int) url.Values {
	q := url.Values{}
	q.Set("limit", strconv.Itoa(limit))
	q.Set("offset", strconv.Itoa(offset))
	return q
}

func isStatus(err error, code int) bool {
	var se *remote.StatusError
	return errors.As(err, &se) && se.Status == code
}
