package discovery_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/bqfake"
	"github.com/bfaudit/bfaudit/testkit/discovery"
)

// Requests the BigQuery clients really send (recorded from
// cloud.google.com/go/bigquery and google.golang.org/api/bigquery/v2).
const (
	dryRunBody = `{"configuration":{"dryRun":true,"query":{"query":"SELECT 1","queryParameters":[{"name":"start","parameterType":{"type":"TIMESTAMP"},"parameterValue":{"value":"2026-07-01 00:00:00+00:00"}}],"useLegacySql":false}},"jobReference":{"jobId":"d111f53f","projectId":"billing"}}`
	queryBody  = `{"formatOptions":{"useInt64Timestamp":true},"labels":{"bfaudit":"plan-preview"},"maximumBytesBilled":"1073741824","query":"SELECT 1","queryParameters":[{"name":"table","parameterType":{"type":"STRING"},"parameterValue":{"value":"refunds"}}],"requestId":"request-1","useLegacySql":false}`
)

func TestRealRequestsKeepTheDescription(t *testing.T) {
	doc := bqfake.Description()
	for _, c := range []struct{ method, path, query, body, id string }{
		{"GET", "/bigquery/v2/projects/shop/datasets/revenue/tables/refunds", "alt=json&prettyPrint=false&view=STORAGE_STATS", "", "bigquery.tables.get"},
		{"POST", "/bigquery/v2/projects/billing/jobs", "alt=json&prettyPrint=false", dryRunBody, "bigquery.jobs.insert"},
		{"POST", "/bigquery/v2/projects/billing/queries", "alt=json&prettyPrint=false", queryBody, "bigquery.jobs.query"},
		{"GET", "/bigquery/v2/projects/billing/queries/job1", "alt=json&fields=rows%2CpageToken%2CtotalRows&formatOptions.useInt64Timestamp=true&location=US&prettyPrint=false&startIndex=0", "", "bigquery.jobs.getQueryResults"},
	} {
		m, params, v := doc.Check(c.method, c.path, mustQuery(t, c.query), []byte(c.body))
		if len(v) > 0 || m == nil || m.ID != c.id {
			t.Errorf("%s %s: method %v, violations %v; want %s and none", c.method, c.path, m, v, c.id)
		}
		if m != nil && params["projectId"] == "" {
			t.Errorf("%s %s: path parameters %v", c.method, c.path, params)
		}
	}
}

// The checker is not a rubber stamp: each request altered from a real one
// is refused, naming the method and what is wrong.
func TestAlteredRequestsAreRefused(t *testing.T) {
	doc := bqfake.Description()
	tableGet := "/bigquery/v2/projects/shop/datasets/revenue/tables/refunds"
	for _, c := range []struct{ name, method, path, query, body, want string }{
		{"unknown query parameter", "GET", tableGet, "alt=json&viewz=BASIC", "", `bigquery.tables.get: query parameter "viewz" is not one the method declares`},
		{"path parameter sent in the query", "GET", tableGet, "projectId=shop", "", `query parameter "projectId" is not one`},
		{"value outside the enum", "GET", tableGet, "view=EVERYTHING", "", "view=\"EVERYTHING\": not one of TABLE_METADATA_VIEW_UNSPECIFIED"},
		{"not a boolean", "GET", tableGet, "prettyPrint=no", "", "prettyPrint=\"no\": not a boolean"},
		{"sent twice", "GET", tableGet, "view=BASIC&view=FULL", "", "view is sent 2 times"},
		{"negative uint32", "GET", "/bigquery/v2/projects/p/queries/j", "maxResults=-1", "", "maxResults=\"-1\": negative"},
		{"body on a get", "GET", tableGet, "", `{"x":1}`, "bigquery.tables.get: a body is sent, but the method takes none"},
		{"unknown body field", "POST", "/bigquery/v2/projects/billing/jobs", "", strings.Replace(dryRunBody, `"queryParameters"`, `"queryParams"`, 1),
			`bigquery.jobs.insert: request body/configuration/query/queryParams: field "queryParams" is not in JobConfigurationQuery`},
		{"unknown field deep in an array", "POST", "/bigquery/v2/projects/billing/jobs", "", strings.Replace(dryRunBody, `"parameterValue"`, `"parameterValu"`, 1),
			`request body/configuration/query/queryParameters/0/parameterValu: field "parameterValu" is not in QueryParameter`},
		{"output-only field", "POST", "/bigquery/v2/projects/billing/jobs", "", strings.Replace(dryRunBody, `{"configuration"`, `{"statistics":{},"configuration"`, 1),
			`request body/statistics: field "statistics" of Job is output only`},
		{"boolean as a string", "POST", "/bigquery/v2/projects/billing/jobs", "", strings.Replace(dryRunBody, `"dryRun":true`, `"dryRun":"true"`, 1),
			"request body/configuration/dryRun: a string, want boolean"},
		{"int64 as a number", "POST", "/bigquery/v2/projects/billing/queries", "", strings.Replace(queryBody, `"1073741824"`, `1073741824`, 1),
			"request body/maximumBytesBilled: a number, want string"},
		{"int64 that is not one", "POST", "/bigquery/v2/projects/billing/queries", "", strings.Replace(queryBody, `"1073741824"`, `"1 GiB"`, 1),
			`request body/maximumBytesBilled: "1 GiB": not an int64`},
		{"label of the wrong type", "POST", "/bigquery/v2/projects/billing/queries", "", strings.Replace(queryBody, `"plan-preview"`, `7`, 1),
			"request body/labels/bfaudit: a number, want string"},
		{"not JSON", "POST", "/bigquery/v2/projects/billing/queries", "", `{"query":`, "request body: not JSON"},
		{"method the path does not allow", "DELETE", "/bigquery/v2/projects/billing/queries", "", "", "the path allows only POST (bigquery.jobs.query)"},
		{"unknown path", "GET", "/bigquery/v2/projects/shop/tables/refunds", "", "", "no method of the document has this path"},
		{"slash in a path parameter", "GET", "/bigquery/v2/projects/a/b/jobs", "", "", "no method of the document has this path"},
		{"outside the service path", "GET", "/bigquery/v1/projects/shop/datasets", "", "", "not under the service path /bigquery/v2/"},
	} {
		_, _, v := doc.Check(c.method, c.path, mustQuery(t, c.query), []byte(c.body))
		if !strings.Contains(strings.Join(v, "\n"), c.want) {
			t.Errorf("%s: violations %q, want one saying %q", c.name, v, c.want)
		}
	}
}

// An answer is held to the method's response schema: a fake cannot
// invent a field, nor give one the wrong type.
func TestAnswersAreChecked(t *testing.T) {
	doc := bqfake.Description()
	m, _, _ := doc.Check("GET", "/bigquery/v2/projects/shop/datasets/revenue/tables/refunds", nil, nil)
	if v := doc.CheckAnswer(m, []byte(`{"numRows":"5","timePartitioning":{"type":"DAY"},"creationTime":"1767225600000"}`)); len(v) > 0 {
		t.Errorf("a table as BigQuery gives it: %v", v)
	}
	for body, want := range map[string]string{
		`{"numRows":5}`:                          "answer/numRows: a number, want string",
		`{"partitions":[]}`:                      `answer/partitions: field "partitions" is not in Table`,
		`{"managedTableType":"ICEBERG"}`:         `answer/managedTableType: "ICEBERG": not one of`,
		`{"schema":{"fields":[{"nam":"x"}]}}`:    `answer/schema/fields/0/nam: field "nam" is not in TableFieldSchema`,
		`{"labels":{"a":["b"]}}`:                 "answer/labels/a: an array, want string",
		`[]`:                                     "answer: an array, want object",
		`{"tableReference":{"projectId":"p"}} x`: "", // trailing bytes are the transport's business
	} {
		v := strings.Join(doc.CheckAnswer(m, []byte(body)), "\n")
		if want == "" && v != "" || !strings.Contains(v, want) {
			t.Errorf("%s: violations %q, want one saying %q", body, v, want)
		}
	}
	var table any
	if err := json.Unmarshal([]byte(`{"numBytes":"12","readOnlyField":1}`), &table); err != nil {
		t.Fatal(err)
	}
	if v := doc.CheckValue("Table", table, false); len(v) != 1 || !strings.Contains(v[0], `"readOnlyField" is not in Table`) {
		t.Errorf("CheckValue: %v", v)
	}
}

func mustQuery(t *testing.T, s string) url.Values {
	t.Helper()
	q, err := url.ParseQuery(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// An API served at its host's root (IAM, Resource Manager: an empty
// servicePath) has its methods' paths start at "/".
func TestRootServicePath(t *testing.T) {
	doc, err := discovery.Load([]byte(`{"servicePath": "", "resources": {"projects": {"methods": {"getIamPolicy": {
		"id": "cloudresourcemanager.projects.getIamPolicy", "httpMethod": "POST", "path": "v3/{+resource}:getIamPolicy",
		"parameters": {"resource": {"location": "path", "required": true, "type": "string", "pattern": "^projects/[^/]+$"}}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	m, params, v := doc.Check("POST", "/v3/projects/proj:getIamPolicy", url.Values{}, nil)
	if m == nil || len(v) > 0 || params["resource"] != "projects/proj" {
		t.Errorf("method %v, params %v, violations %v", m, params, v)
	}
	if m, _, v := doc.Check("POST", "/v1/projects/proj:getIamPolicy", url.Values{}, nil); m != nil || len(v) == 0 {
		t.Errorf("a path of no method: method %v, violations %v", m, v)
	}
}
