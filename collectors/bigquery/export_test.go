package bigquery

import "testing"

// FaultFake lets faultmatrix_test.go (package bigquery_test) break one
// unit of the fake BigQuery between two collections.
type FaultFake struct{ f *fakeBQ }

// NewFaultFixture serves project proj, whose dataset analytics holds the
// table bf_7001_tmp (no expiration: BF005) and an ACL entry for BF-7001's
// elevated principal (BF003), next to a production table and reader; and
// project other, with nothing of BF-7001's, so that failing proj is not
// failing the whole source. The collector is configured and Init-ed.
func NewFaultFixture(t *testing.T) (*Collector, *FaultFake) {
	f := newFakeBQ(t)
	f.datasets["proj"] = []string{dsEntry("proj", "analytics", `{"team":"data"}`)}
	f.datasetBodies["proj/analytics"] = dsBody("proj", "analytics", `[
		{"role":"OWNER","specialGroup":"projectOwners"},
		{"role":"READER","userByEmail":"prod-reader@example.com"},
		{"role":"WRITER","userByEmail":"bf-7001@proj.iam.gserviceaccount.com"}]`)
	f.tables["proj/analytics"] = []string{
		tableEntry("proj", "analytics", "events", `{}`, ms(jan2), 0),
		tableEntry("proj", "analytics", "bf_7001_tmp", `{"backfill_id":"bf-7001"}`, ms(jan2), 0),
	}
	f.tableBodies["proj/analytics/bf_7001_tmp"] = tableBody("proj", "analytics", "bf_7001_tmp", 1200, 98765, ms(jan20), 0)
	f.datasets["other"] = []string{dsEntry("other", "misc", `{}`)}
	f.datasetBodies["other/misc"] = dsBody("other", "misc", `[]`)
	// The job history: daily_revenue was last built from the table the
	// matrix's plan rewrote before the rewrite completed (BF024).
	f.dryRunBytes = 10 << 20
	f.history["proj"] = []string{jobRowJSON("job_revenue", jan2, "MERGE", "proj.analytics.daily_revenue", "proj.analytics.bf_7001_revenue_fix")}
	srv := f.start()
	c := newCollector(t, srv.URL, "proj", "other")
	c.Principals = []Principal{{Member: "serviceAccount:bf-7001@proj.iam.gserviceaccount.com", BackfillID: "BF-7001"}}
	c.jobs = nil
	c.Lineage = Lineage{Jobs: true, Region: "US"}
	if err := c.Init(testEnv()); err != nil {
		t.Fatal(err)
	}
	return c, &FaultFake{f: f}
}

// FailHistory makes the job history query of project answer 403.
func (ff *FaultFake) FailHistory(project string) {
	ff.f.mu.Lock()
	defer ff.f.mu.Unlock()
	ff.f.historyFail[project] = 403
}

// Deny makes every call about project answer 403.
func (ff *FaultFake) Deny(project string) {
	ff.f.mu.Lock()
	defer ff.f.mu.Unlock()
	ff.f.denied[project] = true
}

// Fail makes every request whose path ends with suffix answer status.
func (ff *FaultFake) Fail(suffix string, status int) {
	ff.f.mu.Lock()
	defer ff.f.mu.Unlock()
	ff.f.fail[suffix] = status
}
