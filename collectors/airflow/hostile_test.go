package airflow

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// failFromOffset serves the fake's DAG listing until offset n, then 500.
func failFromOffset(f *fakeAirflow, n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if off, _ := strconv.Atoi(r.URL.Query().Get("offset")); off >= n {
			f.problem(w, http.StatusInternalServerError, "database is locked")
			return
		}
		f.page(w, r, "dags", f.store.DAGs)
	})
}

// endlessDAGs pages forever: a huge total_entries, and fresh DAGs on every
// page, as a server with a broken count would.
func endlessDAGs() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		dags := make([]map[string]any, 0, limit)
		for i := range limit {
			dags = append(dags, map[string]any{"dag_id": fmt.Sprintf("dag_%d", off+i), "is_paused": false, "tags": []any{}})
		}
		writeJSON(w, http.StatusOK, map[string]any{"dags": dags, "total_entries": 1 << 40})
	})
}

// offsetIgnored answers the first page whatever the offset asked.
func offsetIgnored() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dags := []map[string]any{{"dag_id": "a"}, {"dag_id": "b"}}
		writeJSON(w, http.StatusOK, map[string]any{"dags": dags, "total_entries": 1000000})
	})
}

// hostileCollector reads f with a one-second call timeout, real retry
// waits under the default bounds, and hostile.Canary as its bearer token.
func hostileCollector(t *testing.T, f *fakeAirflow) *Airflow {
	t.Helper()
	c := New()
	c.URL, c.APIVersion, c.TokenEnv = f.URL(), "2", "TEST_AIRFLOW_TOKEN"
	c.Timeout, c.Budget, c.MaxPages = time.Second, 15*time.Second, 20
	if err := c.Init(env("airflow-test")); err != nil {
		t.Fatal(err)
	}
	return c
}

// Issue 12: each hostile answer finishes within the source's bounds,
// degrades only the unit it hit, and leaks nothing: the bearer token is
// hostile.Canary and appears in no error.
func TestHostileServers(t *testing.T) {
	t.Setenv("TEST_AIRFLOW_TOKEN", hostile.Canary)
	tests := []struct {
		name    string
		path    string
		h       http.Handler
		unit    string // the only scope errors may be at
		maxReqs int    // bound on requests to path (0: not checked)
	}{
		{"stall on one DAG's details", "/api/v2/dags/daily_revenue/details", hostile.Stall(), "dags/daily_revenue", 0},
		{"drip on one DAG's tasks", "/api/v2/dags/bf_1234_refund_replay/tasks", hostile.Drip(50 * time.Millisecond), "dags/bf_1234_refund_replay", 1},
		{"429 Retry-After 3600 on one DAG's runs", "/api/v2/dags/bf_3100_ledger_replay/dagRuns", hostile.RetryAfter(429, 3600), "dags/bf_3100_ledger_replay/runs", 1},
		{"header-echoing 502 with the token", "/api/v2/dags/daily_revenue/details", hostile.EchoHeaders(502), "dags/daily_revenue", 4},
		{"50 MB answer to the DAG listing", "/api/v2/dags", hostile.Huge(50 << 20), "dags", 1},
		{"endless pagination", "/api/v2/dags", endlessDAGs(), "dags", 20},
		{"offset ignored", "/api/v2/dags", offsetIgnored(), "dags", 2},
		{"stall on the pool listing", "/api/v2/pools", hostile.Stall(), "pools", 0},
		{"header-echoing 502 on the connection listing", "/api/v2/connections", hostile.EchoHeaders(502), "connections", 4},
		{"50 MB answer to the variable listing", "/api/v2/variables", hostile.Huge(50 << 20), "variables", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAirflow(t, "2")
			counter := hostile.Count(tt.h)
			f.misbehave[tt.path] = counter
			f.token = hostile.Canary
			c := hostileCollector(t, f)
			sink := collectWithin(t, c, 40*time.Second)
			if len(sink.Errors) == 0 {
				t.Fatalf("no error for %s", tt.name)
			}
			for _, e := range sink.Errors {
				if e.Scope != tt.unit {
					t.Errorf("error outside %s: %+v", tt.unit, e)
				}
				if strings.Contains(e.Error, hostile.Canary) {
					t.Errorf("the token leaked into an error: %s", e.Error)
				}
			}
			out, _ := json.Marshal(sink)
			if strings.Contains(string(out), hostile.Canary) {
				t.Errorf("the token leaked into the output")
			}
			if tt.maxReqs > 0 && counter.N() > tt.maxReqs {
				t.Errorf("%d requests to %s, want at most %d", counter.N(), tt.path, tt.maxReqs)
			}
			if tt.unit != "dags" && sink.Artifact(base+"bf_1234_refund_replay") == nil {
				t.Errorf("the rest of the source was not reported: %v", uris(sink, ""))
			}
		})
	}
}

// When the whole server misbehaves, the source fails (or its DAG listing
// does) within its bounds, and the token is in no error.
func TestHostileWholeServer(t *testing.T) {
	t.Setenv("TEST_AIRFLOW_TOKEN", hostile.Canary)
	tests := []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"accepts and stalls (TCP)", func(t *testing.T) string { return "http://" + hostile.AcceptAndStall(t) }},
		{"stall", func(t *testing.T) string { return hostile.Server(t, hostile.Stall()).URL }},
		{"drip", func(t *testing.T) string { return hostile.Server(t, hostile.Drip(100*time.Millisecond)).URL }},
		{"503 Retry-After 3600", func(t *testing.T) string { return hostile.Server(t, hostile.RetryAfter(503, 3600)).URL }},
		{"header-echoing 502", func(t *testing.T) string { return hostile.Server(t, hostile.EchoHeaders(502)).URL }},
		{"50 MB answers", func(t *testing.T) string { return hostile.Server(t, hostile.Huge(50<<20)).URL }},
	}
	for _, tt := range tests {
		for _, version := range []string{"auto", "2"} {
			t.Run(tt.name+" api_version "+version, func(t *testing.T) {
				t.Parallel()
				c := New()
				c.URL, c.APIVersion, c.TokenEnv = tt.url(t), version, "TEST_AIRFLOW_TOKEN"
				// Everything is hostile here: short calls, short waits.
				c.Timeout, c.Budget = 500*time.Millisecond, 15*time.Second
				c.Retry = remote.RetryPolicy{Base: 10 * time.Millisecond}
				if err := c.Init(env("")); err != nil {
					t.Fatal(err)
				}
				sink := collectors.NewTestSink()
				done := make(chan error, 1)
				go func() { done <- collectors.Collect(context.Background(), c, sink) }()
				var err error
				select {
				case err = <-done:
				case <-time.After(40 * time.Second):
					t.Fatal("Collect did not return within 40s")
				}
				texts := []string{}
				if err != nil {
					texts = append(texts, err.Error())
				}
				for _, e := range sink.Errors {
					if e.Scope != "dags" && e.Scope != scopePools && e.Scope != scopeConnections && e.Scope != scopeVariables {
						t.Errorf("error at %q, want the whole source, dags, or a deployment-wide listing", e.Scope)
					}
					texts = append(texts, e.Error)
				}
				if len(texts) == 0 {
					t.Fatal("no error from a hostile server")
				}
				for _, s := range texts {
					if strings.Contains(s, hostile.Canary) {
						t.Errorf("the token leaked: %s", s)
					}
				}
			})
		}
	}
}
