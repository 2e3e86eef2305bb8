package bigquery

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/bqfake"
	"github.com/bfaudit/bfaudit/testkit/discovery"
)

// fakeBQ serves the BigQuery v2 REST paths the collector and the client
// library call, under /bigquery/v2/, with the real JSON shapes: int64s as
// strings, times in epoch milliseconds, TIMESTAMP cells in epoch
// microseconds (the client asks for formatOptions.useInt64Timestamp),
// page tokens, and Google's error body.
type fakeBQ struct {
	t  *testing.T
	mu sync.Mutex
	// datasets: project -> list entries (JSON objects) in order.
	datasets map[string][]string
	// dataset bodies for datasets.get: "p/ds" -> JSON.
	datasetBodies map[string]string
	// tables: "p/ds" -> tables.list entries (JSON objects).
	tables map[string][]string
	// tableBodies for tables.get: "p/ds/t" -> JSON.
	tableBodies map[string]string
	denied      map[string]bool // project -> 403 on everything
	throttle    map[string]int  // path fragment -> answer 429 this many times first
	fail        map[string]int  // path suffix -> answer this status, always
	pageSize    int

	dryRunBytes int64
	// result of the validation query: schema fields JSON and rows JSON.
	schema, rows string
	// async makes jobs.query answer jobComplete=false, so the client
	// falls back to jobs.getQueryResults; neverDone makes that answer
	// jobComplete=false too, at once, however long it is asked.
	async, neverDone bool

	// history: project -> its JOBS_BY_PROJECT rows (JSON row objects)
	// answered to the lineage query; historyFail: project -> status of
	// every lineage query (dry run included) about it.
	history     map[string][]string
	historyFail map[string]int

	requests     []string
	queryBodies  []map[string]any
	insertBodies []map[string]any
}

func newFakeBQ(t *testing.T) *fakeBQ {
	return &fakeBQ{t: t, datasets: map[string][]string{}, datasetBodies: map[string]string{},
		tables: map[string][]string{}, tableBodies: map[string]string{}, denied: map[string]bool{},
		throttle: map[string]int{}, fail: map[string]int{}, pageSize: 2,
		history: map[string][]string{}, historyFail: map[string]int{}}
}

func (f *fakeBQ) start() *httptest.Server { return serveChecked(f.t, f) }

// serveChecked serves a fake behind BigQuery's API description
// (discovery.Serve): every request the collector or a fix action sends,
// and every successful answer of the fake's, is checked against it.
func serveChecked(t *testing.T, h http.Handler) *httptest.Server {
	return discovery.Serve(t, bqfake.Description(), "BigQuery's API description", h)
}

func (f *fakeBQ) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	rest, ok := strings.CutPrefix(r.URL.Path, "/bigquery/v2/projects/")
	if !ok {
		bqError(w, http.StatusNotFound, "notFound", "test fake: no route "+r.URL.Path)
		return
	}
	for frag, n := range f.throttle {
		if n > 0 && strings.Contains(r.URL.Path, frag) {
			f.throttle[frag] = n - 1
			w.Header().Set("Retry-After", "2")
			bqError(w, http.StatusTooManyRequests, "rateLimitExceeded", "Exceeded rate limits: too many api requests per user per method")
			return
		}
	}
	for frag, code := range f.fail {
		if strings.HasSuffix(r.URL.Path, frag) {
			bqError(w, code, "backendError", "test fake: failing "+frag)
			return
		}
	}
	parts := strings.Split(rest, "/")
	project := parts[0]
	if f.denied[project] {
		bqError(w, http.StatusForbidden, "accessDenied", fmt.Sprintf("Access Denied: Project %s: User does not have bigquery.datasets.get permission", project))
		return
	}
	q := r.URL.Query()
	switch {
	case r.Method == "GET" && len(parts) == 2 && parts[1] == "datasets":
		f.page(w, q, "datasets", "bigquery#datasetList", f.datasets[project])
	case r.Method == "GET" && len(parts) == 3 && parts[1] == "datasets":
		if q.Get("accessPolicyVersion") != "3" {
			bqError(w, http.StatusBadRequest, "invalid", "test fake: ask accessPolicyVersion=3 to see conditions")
			return
		}
		f.body(w, f.datasetBodies[project+"/"+parts[2]])
	case r.Method == "GET" && len(parts) == 4 && parts[3] == "tables":
		f.page(w, q, "tables", "bigquery#tableList", f.tables[project+"/"+parts[2]])
	case r.Method == "GET" && len(parts) == 5 && parts[3] == "tables":
		f.body(w, f.tableBodies[project+"/"+parts[2]+"/"+parts[4]])
	case r.Method == "POST" && len(parts) == 2 && parts[1] == "jobs":
		f.jobsInsert(w, r, project)
	case r.Method == "POST" && len(parts) == 2 && parts[1] == "queries":
		f.jobsQuery(w, r, project)
	case r.Method == "GET" && len(parts) == 3 && parts[1] == "queries":
		f.getQueryResults(w, q, project, parts[2])
	default:
		bqError(w, http.StatusNotFound, "notFound", "test fake: no route "+r.Method+" "+r.URL.Path)
	}
}

func (f *fakeBQ) page(w http.ResponseWriter, q map[string][]string, field, kind string, all []string) {
	start, _ := strconv.Atoi(first(q["pageToken"]))
	end := min(start+f.pageSize, len(all))
	next := ""
	if end < len(all) {
		next = fmt.Sprintf(`,"nextPageToken":"%d"`, end)
	}
	total := ""
	if field == "tables" {
		total = fmt.Sprintf(`,"totalItems":%d`, len(all))
	}
	fmt.Fprintf(w, `{"kind":%q,"etag":"abc","%s":[%s]%s%s}`, kind, field, strings.Join(all[start:end], ","), next, total)
}

func (f *fakeBQ) body(w http.ResponseWriter, body string) {
	if body == "" {
		bqError(w, http.StatusNotFound, "notFound", "Not found")
		return
	}
	io.WriteString(w, body)
}

func (f *fakeBQ) jobsInsert(w http.ResponseWriter, r *http.Request, project string) {
	var job map[string]any
	json.NewDecoder(r.Body).Decode(&job)
	f.insertBodies = append(f.insertBodies, job)
	cfg, _ := job["configuration"].(map[string]any)
	query, _ := cfg["query"].(map[string]any)
	if sql, _ := query["query"].(string); f.historyFailed(w, sql) {
		return
	}
	if dry, _ := cfg["dryRun"].(bool); !dry {
		bqError(w, http.StatusBadRequest, "invalid", "test fake: only dry runs go through jobs.insert")
		return
	}
	fmt.Fprintf(w, `{"kind":"bigquery#job","etag":"e","jobReference":{"projectId":%q,"location":"US"},
		"configuration":{"query":{"query":"x","useLegacySql":false},"dryRun":true,"jobType":"QUERY"},
		"statistics":{"creationTime":"1769900000000","totalBytesProcessed":"%d",
		  "query":{"totalBytesProcessed":"%d","totalBytesBilled":"0","cacheHit":false,"statementType":"SELECT"}},
		"status":{"state":"DONE"}}`, project, f.dryRunBytes, f.dryRunBytes)
}

func (f *fakeBQ) jobsQuery(w http.ResponseWriter, r *http.Request, project string) {
	var req map[string]any
	json.NewDecoder(r.Body).Decode(&req)
	f.queryBodies = append(f.queryBodies, req)
	if sql, _ := req["query"].(string); strings.Contains(sql, "INFORMATION_SCHEMA.JOBS_BY_PROJECT") {
		f.jobHistory(w, sql, project)
		return
	}
	ref := fmt.Sprintf(`{"projectId":%q,"jobId":"job_val1","location":"US"}`, project)
	if f.async {
		fmt.Fprintf(w, `{"kind":"bigquery#queryResponse","jobReference":%s,"jobComplete":false}`, ref)
		return
	}
	fmt.Fprintf(w, `{"kind":"bigquery#queryResponse","schema":{"fields":%s},"jobReference":%s,
		"totalRows":"%d","rows":%s,"totalBytesProcessed":"%d","jobComplete":true,"cacheHit":false}`,
		f.schema, ref, strings.Count(f.rows, `{"f"`), f.rows, f.dryRunBytes)
}

func (f *fakeBQ) getQueryResults(w http.ResponseWriter, q map[string][]string, project, job string) {
	if job != "job_val1" {
		bqError(w, http.StatusNotFound, "notFound", "Not found: Job "+project+":"+job)
		return
	}
	if f.neverDone {
		fmt.Fprintf(w, `{"kind":"bigquery#getQueryResultsResponse","jobReference":{"projectId":%q,"jobId":%q,"location":"US"},"jobComplete":false}`, project, job)
		return
	}
	if first(q["maxResults"]) == "0" {
		// Google's client waits with maxResults=0 and reads rows afterwards.
		fmt.Fprintf(w, `{"kind":"bigquery#getQueryResultsResponse","schema":{"fields":%s},
			"jobReference":{"projectId":%q,"jobId":%q,"location":"US"},"totalRows":"%d","jobComplete":true}`,
			f.schema, project, job, strings.Count(f.rows, `{"f"`))
		return
	}
	fmt.Fprintf(w, `{"kind":"bigquery#getQueryResultsResponse","schema":{"fields":%s},
		"jobReference":{"projectId":%q,"jobId":%q,"location":"US"},"totalRows":"%d","rows":%s,"jobComplete":true}`,
		f.schema, project, job, strings.Count(f.rows, `{"f"`), f.rows)
}

func bqError(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	status := map[int]string{400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}[code]
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"errors":[{"message":%q,"domain":"global","reason":%q}],"status":%q}}`,
		code, msg, msg, reason, status)
}

func (f *fakeBQ) count(fragment string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.Contains(r, fragment) {
			n++
		}
	}
	return n
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
