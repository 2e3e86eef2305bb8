package bigquery

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// historyFrom finds the project and region a lineage query reads:
// FROM `p`.`region-x`.INFORMATION_SCHEMA.JOBS_BY_PROJECT.
var historyFrom = regexp.MustCompile("FROM `([^`]+)`\\.`(region-[^`]+)`\\.INFORMATION_SCHEMA\\.JOBS_BY_PROJECT")

// jobsSchema is the lineage query's result schema, as BigQuery types it.
const jobsSchema = `[{"name":"job_id","type":"STRING","mode":"NULLABLE"},
	{"name":"end_time","type":"TIMESTAMP","mode":"NULLABLE"},
	{"name":"statement_type","type":"STRING","mode":"NULLABLE"},
	{"name":"destination_table","type":"STRING","mode":"NULLABLE"},
	{"name":"referenced_tables","type":"STRING","mode":"REPEATED"},
	{"name":"labels","type":"STRING","mode":"REPEATED"}]`

// historyFailed answers the status set for the project a lineage query
// reads, and reports whether it did.
func (f *fakeBQ) historyFailed(w http.ResponseWriter, sql string) bool {
	m := historyFrom.FindStringSubmatch(sql)
	if m == nil {
		return false
	}
	if code := f.historyFail[m[1]]; code != 0 {
		bqError(w, code, "accessDenied", "Access Denied: Table "+m[1]+":"+m[2]+".INFORMATION_SCHEMA.JOBS_BY_PROJECT: User does not have permission to query table")
		return true
	}
	return false
}

// jobHistory answers a lineage query through jobs.query, at once.
func (f *fakeBQ) jobHistory(w http.ResponseWriter, sql, billing string) {
	if f.historyFailed(w, sql) {
		return
	}
	m := historyFrom.FindStringSubmatch(sql)
	if m == nil {
		bqError(w, http.StatusBadRequest, "invalidQuery", "test fake: lineage query without FROM `project`.`region-x`")
		return
	}
	rows := f.history[m[1]]
	fmt.Fprintf(w, `{"kind":"bigquery#queryResponse","schema":{"fields":%s},
		"jobReference":{"projectId":%q,"jobId":"job_hist1","location":"US"},
		"totalRows":"%d","rows":[%s],"totalBytesProcessed":"%d","jobComplete":true,"cacheHit":false}`,
		jobsSchema, billing, len(rows), strings.Join(rows, ","), f.dryRunBytes)
}

// jobRowJSON is one JOBS_BY_PROJECT row of the lineage query.
func jobRowJSON(id string, end time.Time, statement, destination string, referenced ...string) string {
	return labelledJobRowJSON(id, end, statement, destination, nil, referenced...)
}

// labelledJobRowJSON is a job row whose job carries labels ("key=value").
func labelledJobRowJSON(id string, end time.Time, statement, destination string, labels []string, referenced ...string) string {
	list := func(vs []string) string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = fmt.Sprintf(`{"v":%q}`, v)
		}
		return strings.Join(out, ",")
	}
	return fmt.Sprintf(`{"f":[{"v":%q},{"v":"%d"},{"v":%q},{"v":%q},{"v":[%s]},{"v":[%s]}]}`,
		id, end.UnixMicro(), statement, destination, list(referenced), list(labels))
}
