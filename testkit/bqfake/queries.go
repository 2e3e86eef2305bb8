package bqfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"

	"github.com/bfaudit/bfaudit/testkit/discovery"
)

// partitionsQuery is the one query the fake runs: a table's partitions.
var partitionsQuery = regexp.MustCompile("(?is)^\\s*SELECT\\s+partition_id,\\s*total_rows,\\s*total_logical_bytes\\s+FROM\\s+`([^`.]+)\\.([^`.]+)\\.INFORMATION_SCHEMA\\.PARTITIONS`\\s+WHERE\\s+table_name\\s*=\\s*@table\\s*$")

// partitionsSchema is that query's result schema, as BigQuery types it.
var partitionsSchema = map[string]any{"fields": []any{
	map[string]any{"name": "partition_id", "type": "STRING", "mode": "NULLABLE"},
	map[string]any{"name": "total_rows", "type": "INTEGER", "mode": "NULLABLE"},
	map[string]any{"name": "total_logical_bytes", "type": "INTEGER", "mode": "NULLABLE"},
}}

// queryParam is a QueryParameter of the description, the scalar part.
type queryParam struct {
	Name           string `json:"name"`
	ParameterValue struct {
		Value string `json:"value"`
	} `json:"parameterValue"`
}

// jobBody is what the fake reads of a Job (jobs.insert).
type jobBody struct {
	JobReference struct {
		JobID    string `json:"jobId"`
		Location string `json:"location"`
	} `json:"jobReference"`
	Configuration struct {
		DryRun bool `json:"dryRun"`
		Query  struct {
			Query           string       `json:"query"`
			QueryParameters []queryParam `json:"queryParameters"`
		} `json:"query"`
	} `json:"configuration"`
}

// queryBody is what the fake reads of a QueryRequest (jobs.query).
type queryBody struct {
	Query           string       `json:"query"`
	QueryParameters []queryParam `json:"queryParameters"`
	DryRun          bool         `json:"dryRun"`
	Location        string       `json:"location"`
}

// result is a finished query's answer, kept for jobs.getQueryResults.
type result struct {
	sql      string
	location string
	rows     []any
	bytes    int64
}

func newQuery(sql string, params []queryParam, dry bool) Query {
	q := Query{SQL: sql, Params: map[string]string{}, DryRun: dry}
	for _, p := range params {
		q.Params[p.Name] = p.ParameterValue.Value
	}
	return q
}

// run runs q: a dry run's bytes, or the partitions query's rows. It
// writes BigQuery's refusal and returns false when there is none.
func (s *Server) run(w http.ResponseWriter, q Query) (result, bool) {
	s.queries = append(s.queries, q)
	if q.DryRun {
		var bytes int64
		if s.dryRun != nil {
			var err error
			if bytes, err = s.dryRun(q); err != nil {
				discovery.WriteError(w, http.StatusBadRequest, "invalidQuery", err.Error())
				return result{}, false
			}
		}
		return result{sql: q.SQL, bytes: bytes}, true
	}
	m := partitionsQuery.FindStringSubmatch(q.SQL)
	table, named := q.Params["table"]
	if m == nil || !named {
		discovery.WriteError(w, http.StatusBadRequest, "invalidQuery",
			"bqfake runs only SELECT partition_id, total_rows, total_logical_bytes FROM `project.dataset.INFORMATION_SCHEMA.PARTITIONS` WHERE table_name = @table")
		return result{}, false
	}
	if !s.hasDataset(m[1], m[2]) {
		notFound(w, fmt.Sprintf("Dataset %s:%s was not found in location US", m[1], m[2]))
		return result{}, false
	}
	r := result{sql: q.SQL, rows: []any{}}
	for _, p := range s.tables[m[1]+"."+m[2]+"."+table].Partitions {
		r.rows = append(r.rows, map[string]any{"f": []any{
			map[string]any{"v": p.ID}, map[string]any{"v": strconv.FormatInt(p.Rows, 10)}, map[string]any{"v": strconv.FormatInt(p.Bytes, 10)}}})
	}
	return r, true
}

// insertJob is jobs.insert: a dry run, or a query that is done at once.
func (s *Server) insertJob(w http.ResponseWriter, project string, body []byte) {
	var b jobBody
	if err := json.Unmarshal(body, &b); err != nil || b.Configuration.Query.Query == "" {
		discovery.WriteError(w, http.StatusBadRequest, "invalid", "bqfake answers query jobs only")
		return
	}
	cfg := b.Configuration
	r, ok := s.run(w, newQuery(cfg.Query.Query, cfg.Query.QueryParameters, cfg.DryRun))
	if !ok {
		return
	}
	r.location = or(b.JobReference.Location, "US")
	ref := map[string]any{"projectId": project, "location": r.location}
	if !cfg.DryRun {
		// A dry run is no job: BigQuery gives it no id.
		id := s.jobID(b.JobReference.JobID)
		ref["jobId"] = id
		s.results[project+"/"+id] = r
	}
	writeJSON(w, s.job(ref, r, cfg.DryRun))
}

// job is a finished query job as jobs.insert gives it.
func (s *Server) job(ref map[string]any, r result, dry bool) map[string]any {
	id := fmt.Sprint(ref["projectId"], ":", ref["location"])
	if ref["jobId"] != nil {
		id += fmt.Sprint(".", ref["jobId"])
	}
	bytes := strconv.FormatInt(r.bytes, 10)
	return map[string]any{"kind": "bigquery#job", "etag": "bqfake", "id": id, "jobReference": ref,
		"configuration": map[string]any{"jobType": "QUERY", "dryRun": dry,
			"query": map[string]any{"query": r.sql, "useLegacySql": false}},
		"statistics": map[string]any{"creationTime": "1767225600000", "totalBytesProcessed": bytes,
			"query": map[string]any{"totalBytesProcessed": bytes, "totalBytesBilled": "0", "cacheHit": false, "statementType": "SELECT"}},
		"status": map[string]any{"state": "DONE"}}
}

// jobID is the id the client chose, or one the fake makes.
func (s *Server) jobID(asked string) string {
	if asked != "" {
		return asked
	}
	s.jobs++
	return fmt.Sprintf("bqfake_job_%d", s.jobs)
}

// query is jobs.query: the answer at once, rows included.
func (s *Server) query(w http.ResponseWriter, project string, body []byte) {
	var b queryBody
	if err := json.Unmarshal(body, &b); err != nil {
		discovery.WriteError(w, http.StatusBadRequest, "invalid", "bqfake: "+err.Error())
		return
	}
	r, ok := s.run(w, newQuery(b.Query, b.QueryParameters, b.DryRun))
	if !ok {
		return
	}
	r.location = or(b.Location, "US")
	ref := map[string]any{"projectId": project, "location": r.location}
	answer := map[string]any{"kind": "bigquery#queryResponse", "jobComplete": true, "cacheHit": false,
		"totalBytesProcessed": strconv.FormatInt(r.bytes, 10)}
	if !b.DryRun {
		id := s.jobID("")
		ref["jobId"] = id
		s.results[project+"/"+id] = r
		answer["schema"] = partitionsSchema
		answer["rows"] = r.rows
		answer["totalRows"] = strconv.Itoa(len(r.rows))
	}
	answer["jobReference"] = ref
	writeJSON(w, answer)
}

// getQueryResults is jobs.getQueryResults of a query the fake ran: every
// row in one page (none when maxResults is 0, as the client asks while it
// waits for the job).
func (s *Server) getQueryResults(w http.ResponseWriter, project, id, maxResults string) {
	r, ok := s.results[project+"/"+id]
	if !ok {
		notFound(w, fmt.Sprintf("Job %s:%s", project, id))
		return
	}
	answer := map[string]any{"kind": "bigquery#getQueryResultsResponse", "etag": "bqfake", "jobComplete": true, "cacheHit": false,
		"jobReference": map[string]any{"projectId": project, "jobId": id, "location": r.location},
		"schema":       partitionsSchema, "totalRows": strconv.Itoa(len(r.rows)), "totalBytesProcessed": strconv.FormatInt(r.bytes, 10)}
	if maxResults != "0" {
		answer["rows"] = r.rows
	}
	writeJSON(w, answer)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		panic("bqfake: " + err.Error())
	}
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}
