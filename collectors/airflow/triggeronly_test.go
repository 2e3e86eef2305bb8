package airflow

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// The DAG objects below keep the schedule fields as Airflow's own API
// tests expect them (apache/airflow: Airflow 2's
// tests/api_connexion/endpoints/test_dag_endpoint.py, "schedule_interval":
// None for schedule_interval=None and a CronExpression otherwise;
// Airflow 3's airflow-core/tests/unit/api_fastapi/core_api/routes/public/
// test_dags.py, "timetable_summary": None with "timetable_description":
// "Never, external triggers only" for schedule=None), plus the
// descriptions Airflow's timetables give for datasets and assets.
const (
	v1TriggerOnlyOld = `{"dag_id": "bf_7001_v1_none", "is_paused": false, "is_active": true, "owners": [], "schedule_interval": null, "timetable_description": null, "tags": []}`
	v1TriggerOnly    = `{"dag_id": "bf_7001_v1_never", "is_paused": false, "is_active": true, "owners": [], "schedule_interval": null, "timetable_description": "Never, external triggers only", "tags": []}`
	v1Datasets       = `{"dag_id": "bf_7001_v1_datasets", "is_paused": false, "is_active": true, "owners": [], "schedule_interval": null, "timetable_description": "Triggered by datasets", "tags": []}`
	v1Cron           = `{"dag_id": "bf_7001_v1_cron", "is_paused": false, "is_active": true, "owners": [], "schedule_interval": {"__type": "CronExpression", "value": "2 2 * * *"}, "timetable_description": null, "tags": []}`
	v2TriggerOnly    = `{"dag_id": "bf_7001_v2_none", "is_paused": false, "is_stale": false, "owners": ["airflow"], "timetable_summary": null, "timetable_description": "Never, external triggers only", "tags": []}`
	v2SummaryNone    = `{"dag_id": "bf_7001_v2_none_text", "is_paused": false, "is_stale": false, "owners": ["airflow"], "timetable_summary": "None", "timetable_description": "Never, external triggers only", "tags": []}`
	v2Assets         = `{"dag_id": "bf_7001_v2_assets", "is_paused": false, "is_stale": false, "owners": ["airflow"], "timetable_summary": "Asset", "timetable_description": "Triggered by assets", "tags": []}`
	v2Cron           = `{"dag_id": "bf_7001_v2_cron", "is_paused": false, "is_stale": false, "owners": ["airflow"], "timetable_summary": "2 2 * * *", "timetable_description": "At 02:02", "tags": []}`
)

func dagExport(t *testing.T, dags ...string) string {
	t.Helper()
	dir := t.TempDir()
	body := `{"dags": [` + strings.Join(dags, ",") + `], "total_entries": ` + strconv.Itoa(len(dags)) + `}`
	if err := os.WriteFile(filepath.Join(dir, "dags.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A DAG without a schedule (schedule_interval null on Airflow 2,
// timetable_summary null or "None" on Airflow 3, "Never, external
// triggers only") runs only when someone triggers it: once its backfill
// is over it is a job left in the scheduler (BF002), not one "still
// scheduled" (BF001). A cron DAG is still scheduled, and so is one
// scheduled on datasets or assets: it runs whenever they update.
func TestTriggerOnlyDAGIsNotStillScheduled(t *testing.T) {
	now := time.Now().UTC()
	var instances []collectors.Instance
	for name, dags := range map[string][]string{
		"af2": {v1TriggerOnlyOld, v1TriggerOnly, v1Datasets, v1Cron},
		"af3": {v2TriggerOnly, v2SummaryNone, v2Assets, v2Cron},
	} {
		c := New()
		c.ExportDir = dagExport(t, dags...)
		c.Pools, c.Connections, c.Variables = false, false, false
		if err := c.Init(collectors.Env{Source: name, Selector: correlate.MustSelector(), Now: func() time.Time { return now }}); err != nil {
			t.Fatal(err)
		}
		instances = append(instances, collectors.Instance{Name: name, Type: "airflow", Collector: c})
	}
	instances = append(instances, collectors.Instance{Name: "plans", Type: "records", Collector: collectortest.PlannedAs{"BF-7001": true}})
	rep := collectortest.Audit(t, instances, now)
	got := map[string][]string{}
	for _, f := range rep.Findings {
		if f.RuleID == "BF001" || f.RuleID == "BF002" {
			dag := f.ArtifactURI[strings.LastIndex(f.ArtifactURI, "/")+1:]
			got[f.RuleID] = append(got[f.RuleID], dag)
		}
	}
	for _, ids := range got {
		sort.Strings(ids)
	}
	want := map[string][]string{
		"BF001": {"bf_7001_v1_cron", "bf_7001_v1_datasets", "bf_7001_v2_assets", "bf_7001_v2_cron"},
		"BF002": {"bf_7001_v1_never", "bf_7001_v1_none", "bf_7001_v2_none", "bf_7001_v2_none_text"},
	}
	for rule, ids := range want {
		if strings.Join(got[rule], " ") != strings.Join(ids, " ") {
			t.Errorf("%s on %v, want %v", rule, got[rule], ids)
		}
	}
	for _, f := range rep.Findings {
		if f.RuleID == "BF002" && !strings.Contains(f.Message, "trigger-only job") {
			t.Errorf("BF002 says %q", f.Message)
		}
	}
}

// Every unit says what it read: the DAG listing its DAGs, a matched
// DAG its details and tasks, its runs unit the runs listed, its backfills
// unit the Airflow 3 backfill objects, and each listing its objects.
func TestUnitsSayWhatTheyRead(t *testing.T) {
	c := exportCollector(t, copyExport(t))
	sink := collectWithin(t, c, 30*time.Second)
	if len(sink.Errors) > 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	for _, w := range []struct {
		scope, what string
		n           int
	}{
		{"dags", "DAGs", 3},
		{"", "DAG details", 3},
		{"dags/bf_3100_ledger_replay", "tasks", 2},
		{"dags/bf_3100_ledger_replay/runs", "active runs", 6},
		{"dags/bf_1234_refund_replay/runs", "active runs", 0},
		{"", "backfill runs", 13},
		{"dags/daily_revenue/runs", "backfill runs", 2},
		{"dags/bf_1234_refund_replay/backfills", "backfills", 1},
		{"pools", "pools", 1},
		{"connections", "connections", 0},
		{"variables", "variables", 0},
	} {
		found := false
		for _, r := range sink.Reads {
			found = found || (r.What == w.what && (w.scope == "" || r.Scope == w.scope))
		}
		if n, _ := sink.Read(w.scope, w.what); n != w.n || !found {
			t.Errorf("%s: read %d %s (reported: %v), want %d", w.scope, n, w.what, found, w.n)
		}
	}
}

// An export's errors name the export directory as the config writes it
// (never this machine's absolute path) and the broken file once.
func TestExportErrorsNameTheirFileOnce(t *testing.T) {
	dir := copyExport(t)
	base := filepath.Dir(dir)
	if err := os.WriteFile(filepath.Join(dir, "dags/bf_3100_ledger_replay/details.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := New()
	c.ExportDir = filepath.Base(dir)
	e := env("scheduler")
	e.BaseDir = base
	if err := c.Init(e); err != nil {
		t.Fatal(err)
	}
	sink := collectWithin(t, c, 30*time.Second)
	if len(sink.Errors) != 1 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	msg := sink.Errors[0].Error
	if strings.Contains(msg, base) || !strings.HasPrefix(msg, "airflow export "+filepath.Base(dir)+": ") ||
		strings.Count(msg, "details.json") != 1 {
		t.Errorf("error %q", msg)
	}
}
