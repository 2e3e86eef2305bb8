// Package bqfake is a BigQuery fake built from BigQuery's official API
// description (testdata/bigquery-api.json, see testdata/SOURCE.md): an
// HTTP server on 127.0.0.1 that answers what the collector's clients
// (cloud.google.com/go/bigquery and google.golang.org/api/bigquery/v2)
// send for a plan preview and a collection, and checks every request and
// answer against the description (testkit/discovery). A request the
// description does not allow is answered 400 and fails the test at its
// end, naming the method, the field and the request; so does an answer of
// the fake's that the description does not allow.
//
// Use:
//
//	bq := bqfake.New(t)
//	bq.AddTable("proj.sales.orders", bqfake.Table{Partitioning: "DAY",
//		Partitions: []bqfake.Partition{{ID: "20260701", Rows: 10, Bytes: 1 << 20}}})
//	bq.DryRun(func(q bqfake.Query) (int64, error) { return 1 << 30, nil })
//	// point the collector at bq.URL (its endpoint setting), with
//	// option.WithoutAuthentication() or fake credentials
//
// It serves, from the tables added:
//   - datasets.list, datasets.get (no access entries), tables.list and
//     tables.get (numRows, numBytes, timePartitioning; 404 for a table or
//     dataset not added);
//   - dry runs (jobs.insert with configuration.dryRun): the statistics'
//     totalBytesProcessed is what the DryRun function says of the SQL and
//     its parameters; its error is BigQuery's refusal (400 invalidQuery);
//   - a query of `project.dataset.INFORMATION_SCHEMA.PARTITIONS` with
//     WHERE table_name = @table, through jobs.query (which the client's
//     Query.Read takes) or jobs.insert and jobs.getQueryResults (Query.Run
//     then Job.Read): the rows partition_id, total_rows,
//     total_logical_bytes of the table's partitions, all in one page;
//   - 400 invalidQuery for any other query.
//
// It answers whole resources: a `fields` selector (partial answers) is
// checked, not applied, and the clients ignore what they did not ask for.
//
// Credentials writes a service-account key whose token endpoint is the
// fake's, for a program that reads Application Default Credentials (the
// CLI): point GOOGLE_APPLICATION_CREDENTIALS at it.
//
// Close takes BigQuery down: every later call is refused.
package bqfake

import (
	_ "embed"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/discovery"
)

//go:embed testdata/bigquery-api.json
var description []byte

// Description is BigQuery's API description, loaded once.
var Description = sync.OnceValue(func() *discovery.Doc {
	return discovery.MustLoad("bqfake: testdata/bigquery-api.json", description)
})

// Table is a table the fake holds.
type Table struct {
	// Partitioning is the time partitioning (DAY, HOUR, MONTH, YEAR), ""
	// for a table that is not partitioned.
	Partitioning string
	// Rows and Bytes are the table's numRows and numBytes; left zero,
	// they are the sums of the partitions'.
	Rows, Bytes int64
	// Partitions are the rows INFORMATION_SCHEMA.PARTITIONS gives.
	Partitions []Partition
}

// Partition is one row of INFORMATION_SCHEMA.PARTITIONS.
type Partition struct {
	ID          string // partition_id: 20260701, 2026070100, __NULL__...
	Rows, Bytes int64  // total_rows, total_logical_bytes
}

// Query is a query as the fake received it.
type Query struct {
	SQL string
	// Params are the query parameters by name, each value as sent (a
	// TIMESTAMP is "2026-07-01 00:00:00" followed by its zone).
	Params map[string]string
	DryRun bool
}

// Server is the fake.
type Server struct {
	// URL is the server's address, the endpoint to give the clients; the
	// API is under URL + "/bigquery/v2/".
	URL string

	srv   *httptest.Server
	guard *discovery.Guard

	mu      sync.Mutex
	tables  map[string]Table // "project.dataset.table"
	dryRun  func(Query) (int64, error)
	queries []Query
	results map[string]result // "project/jobId": a finished query's answer
	jobs    int
}

// New starts the fake; it stops, and reports every break of the
// description, when the test ends.
func New(t testing.TB) *Server {
	s := &Server{tables: map[string]Table{}, results: map[string]result{},
		guard: &discovery.Guard{Doc: Description()}}
	mux := http.NewServeMux()
	mux.HandleFunc(tokenPath, token)
	mux.Handle("/", s.guard.Wrap(http.HandlerFunc(s.serve)))
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(func() {
		s.srv.Close()
		for _, v := range s.guard.Violations() {
			t.Errorf("bqfake: the BigQuery API description does not allow this: %s", v)
		}
	})
	return s
}

// AddTable adds (or replaces) the table id, "project.dataset.table".
func (s *Server) AddTable(id string, t Table) {
	if strings.Count(id, ".") != 2 {
		panic("bqfake: AddTable: " + id + " is not project.dataset.table")
	}
	if t.Rows == 0 && t.Bytes == 0 {
		for _, p := range t.Partitions {
			t.Rows += p.Rows
			t.Bytes += p.Bytes
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tables[id] = t
}

// DryRun sets what a dry run of a query processes, in bytes, or its
// refusal. Unset, every dry run processes 0 bytes.
func (s *Server) DryRun(f func(Query) (int64, error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dryRun = f
}

// Queries lists the queries received, dry runs included, in order.
func (s *Server) Queries() []Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queries)
}

// Requests lists the requests received, as "method id: METHOD /path?query".
func (s *Server) Requests() []string { return s.guard.Requests() }

// TakeViolations returns the breaks of the description seen so far and
// forgets them: a test that sends broken requests on purpose takes them,
// so that they do not fail it at its end.
func (s *Server) TakeViolations() []string { return s.guard.TakeViolations() }

// Close takes BigQuery down: the address refuses every later call.
func (s *Server) Close() { s.srv.Close() }

// serve answers a request the guard let through, by the method it calls.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := discovery.CallOf(r)
	p := c.Params
	switch c.Method.ID {
	case "bigquery.datasets.list":
		s.listDatasets(w, p["projectId"])
	case "bigquery.datasets.get":
		s.getDataset(w, p["projectId"], p["datasetId"])
	case "bigquery.tables.list":
		s.listTables(w, p["projectId"], p["datasetId"])
	case "bigquery.tables.get":
		s.getTable(w, p["projectId"], p["datasetId"], p["tableId"])
	case "bigquery.jobs.insert":
		s.insertJob(w, p["projectId"], c.Body)
	case "bigquery.jobs.query":
		s.query(w, p["projectId"], c.Body)
	case "bigquery.jobs.getQueryResults":
		s.getQueryResults(w, p["projectId"], p["jobId"], r.URL.Query().Get("maxResults"))
	default:
		discovery.WriteError(w, http.StatusNotImplemented, "notImplemented", "bqfake does not serve "+c.Method.ID)
	}
}

// datasets lists the datasets of project that hold a table, sorted.
func (s *Server) datasets(project string) []string {
	seen := map[string]bool{}
	for id := range s.tables {
		if p, rest, _ := strings.Cut(id, "."); p == project {
			ds, _, _ := strings.Cut(rest, ".")
			seen[ds] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

func notFound(w http.ResponseWriter, what string) {
	discovery.WriteError(w, http.StatusNotFound, "notFound", "Not found: "+what)
}

func (s *Server) hasDataset(project, dataset string) bool {
	return slices.Contains(s.datasets(project), dataset)
}

func datasetRef(project, dataset string) map[string]any {
	return map[string]any{"projectId": project, "datasetId": dataset}
}

func (s *Server) listDatasets(w http.ResponseWriter, project string) {
	list := []any{}
	for _, ds := range s.datasets(project) {
		list = append(list, map[string]any{"kind": "bigquery#dataset", "id": project + ":" + ds,
			"datasetReference": datasetRef(project, ds), "location": "US"})
	}
	writeJSON(w, map[string]any{"kind": "bigquery#datasetList", "etag": "bqfake", "datasets": list})
}

func (s *Server) getDataset(w http.ResponseWriter, project, dataset string) {
	if !s.hasDataset(project, dataset) {
		notFound(w, fmt.Sprintf("Dataset %s:%s", project, dataset))
		return
	}
	writeJSON(w, map[string]any{"kind": "bigquery#dataset", "id": project + ":" + dataset, "etag": "bqfake",
		"datasetReference": datasetRef(project, dataset), "location": "US", "access": []any{},
		"creationTime": "1767225600000", "lastModifiedTime": "1767225600000"})
}

// tableFields are what tables.list and tables.get both say of a table.
func tableFields(project, dataset, table string, t Table) map[string]any {
	out := map[string]any{"kind": "bigquery#table", "id": project + ":" + dataset + "." + table, "type": "TABLE",
		"tableReference": map[string]any{"projectId": project, "datasetId": dataset, "tableId": table},
		"creationTime":   "1767225600000"}
	if t.Partitioning != "" {
		out["timePartitioning"] = map[string]any{"type": t.Partitioning}
	}
	return out
}

func (s *Server) listTables(w http.ResponseWriter, project, dataset string) {
	if !s.hasDataset(project, dataset) {
		notFound(w, fmt.Sprintf("Dataset %s:%s", project, dataset))
		return
	}
	list := []any{}
	prefix := project + "." + dataset + "."
	for _, id := range slices.Sorted(maps.Keys(s.tables)) {
		if name, ok := strings.CutPrefix(id, prefix); ok {
			list = append(list, tableFields(project, dataset, name, s.tables[id]))
		}
	}
	writeJSON(w, map[string]any{"kind": "bigquery#tableList", "etag": "bqfake", "tables": list, "totalItems": len(list)})
}

func (s *Server) getTable(w http.ResponseWriter, project, dataset, table string) {
	t, ok := s.tables[project+"."+dataset+"."+table]
	if !ok {
		notFound(w, fmt.Sprintf("Table %s:%s.%s", project, dataset, table))
		return
	}
	body := tableFields(project, dataset, table, t)
	body["etag"] = "bqfake"
	body["numRows"] = fmt.Sprint(t.Rows)
	body["numBytes"] = fmt.Sprint(t.Bytes)
	body["lastModifiedTime"] = "1767225600000"
	body["location"] = "US"
	body["schema"] = map[string]any{"fields": []any{}}
	writeJSON(w, body)
}
