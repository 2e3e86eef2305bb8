package airflow

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// Field lists copied from Airflow's OpenAPI descriptions, so the fake's
// data and the quickstart export are checked field by field against them:
// v2 from airflow-core/src/airflow/api_fastapi/core_api/openapi/
// v2-rest-api-generated.yaml (every listed field is required), v1 from
// airflow/api_connexion/openapi/v1.yaml (properties; v1 marks none required).
var (
	v2DAGResponse = []string{"dag_id", "dag_display_name", "is_paused", "is_stale", "last_parsed_time",
		"last_expired", "bundle_name", "bundle_version", "relative_fileloc", "fileloc", "description",
		"timetable_summary", "timetable_description", "tags", "max_active_tasks", "max_active_runs",
		"max_consecutive_failed_dag_runs", "has_task_concurrency_limits", "has_import_errors",
		"next_dagrun_logical_date", "next_dagrun_data_interval_start", "next_dagrun_data_interval_end",
		"next_dagrun_run_after", "owners", "file_token"}
	v2DAGDetailsExtra = []string{"catchup", "dag_run_timeout", "asset_expression", "doc_md", "start_date",
		"end_date", "is_paused_upon_creation", "params", "render_template_as_native_obj",
		"template_search_path", "timezone", "last_parsed", "default_args", "concurrency", "latest_dag_version"}
	v2DAGDetailsOptional = []string{"owner_links"}
	v2DagTagResponse     = []string{"name", "dag_id", "dag_display_name"}
	v2DAGRunResponse     = []string{"dag_run_id", "dag_id", "logical_date", "queued_at", "start_date", "end_date",
		"duration", "data_interval_start", "data_interval_end", "run_after", "last_scheduling_decision",
		"run_type", "state", "triggered_by", "triggering_user_name", "conf", "note", "dag_versions",
		"bundle_version", "dag_display_name"}
	v2BackfillResponse = []string{"id", "dag_id", "from_date", "to_date", "dag_run_conf", "is_paused",
		"reprocess_behavior", "max_active_runs", "created_at", "completed_at", "updated_at", "dag_display_name"}
	v2TaskResponse = []string{"task_id", "task_display_name", "owner", "start_date", "end_date", "trigger_rule",
		"depends_on_past", "wait_for_downstream", "retries", "queue", "pool", "pool_slots", "execution_timeout",
		"retry_delay", "retry_exponential_backoff", "priority_weight", "weight_rule", "ui_color", "ui_fgcolor",
		"template_fields", "downstream_task_ids", "doc_md", "operator_name", "params", "class_ref", "is_mapped",
		"extra_links"}

	// PoolResponse, ConnectionResponse and VariableResponse; team_name
	// came with multi-team deployments (3.1) and is optional here.
	v2PoolResponse = []string{"name", "slots", "description", "include_deferred", "occupied_slots", "running_slots",
		"queued_slots", "scheduled_slots", "open_slots", "deferred_slots"}
	v2ConnectionResponse = []string{"connection_id", "conn_type", "description", "host", "login", "schema", "port",
		"password", "extra"}
	v2VariableResponse = []string{"key", "value", "description", "is_encrypted"}
	v2TeamName         = []string{"team_name"}

	// Pool, ConnectionCollectionItem (the list has no password or extra)
	// and Variable (VariableCollectionItem is key and description, but
	// Airflow 2 serializes the list with the value too).
	v1Pool = []string{"name", "slots", "occupied_slots", "running_slots", "queued_slots", "open_slots",
		"scheduled_slots", "deferred_slots", "description", "include_deferred"}
	v1ConnectionCollectionItem = []string{"connection_id", "conn_type", "description", "host", "login", "schema", "port"}
	v1Variable                 = []string{"key", "description", "value"}

	v1DAG = []string{"dag_id", "dag_display_name", "is_paused", "is_active", "last_parsed_time", "last_pickled",
		"last_expired", "scheduler_lock", "pickle_id", "default_view", "fileloc", "file_token", "owners",
		"description", "schedule_interval", "timetable_description", "tags", "max_active_tasks",
		"max_active_runs", "has_task_concurrency_limits", "has_import_errors", "next_dagrun",
		"next_dagrun_data_interval_start", "next_dagrun_data_interval_end", "next_dagrun_create_after",
		"max_consecutive_failed_dag_runs"}
	v1DAGDetailExtra = []string{"timezone", "catchup", "orientation", "concurrency", "start_date",
		"dag_run_timeout", "dataset_expression", "doc_md", "default_view", "params", "end_date",
		"is_paused_upon_creation", "last_parsed", "template_search_path", "render_template_as_native_obj"}
	v1DAGRun = []string{"dag_run_id", "dag_id", "logical_date", "execution_date", "start_date", "end_date",
		"data_interval_start", "data_interval_end", "last_scheduling_decision", "run_type", "state",
		"external_trigger", "conf", "note"}
	v1Task = []string{"class_ref", "task_id", "task_display_name", "owner", "start_date", "end_date",
		"trigger_rule", "extra_links", "depends_on_past", "is_mapped", "wait_for_downstream", "retries",
		"queue", "executor", "pool", "pool_slots", "execution_timeout", "retry_delay",
		"retry_exponential_backoff", "priority_weight", "weight_rule", "ui_color", "ui_fgcolor",
		"template_fields", "sub_dag", "downstream_task_ids", "doc_md"}
)

// schema is a field list: required ones must be present, and nothing
// outside required+optional may appear (a misspelt field is caught).
type schema struct {
	name               string
	required, optional []string
}

func (s schema) check(t *testing.T, where string, obj map[string]any) {
	t.Helper()
	for _, k := range s.required {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s: %s lacks %q", where, s.name, k)
		}
	}
	for k := range obj {
		if !slices.Contains(s.required, k) && !slices.Contains(s.optional, k) {
			t.Errorf("%s: %s has %q, which the OpenAPI description does not define", where, s.name, k)
		}
	}
}

func TestFixturesFollowOpenAPI(t *testing.T) {
	v2Details := schema{"DAGDetailsResponse", concat(v2DAGResponse, v2DAGDetailsExtra), v2DAGDetailsOptional}
	v2 := map[string]schema{
		"dags":        {"DAGResponse", v2DAGResponse, nil},
		"dag_runs":    {"DAGRunResponse", v2DAGRunResponse, nil},
		"backfills":   {"BackfillResponse", v2BackfillResponse, nil},
		"tasks":       {"TaskResponse", v2TaskResponse, nil},
		"pools":       {"PoolResponse", v2PoolResponse, v2TeamName},
		"connections": {"ConnectionResponse", v2ConnectionResponse, v2TeamName},
		"variables":   {"VariableResponse", v2VariableResponse, v2TeamName},
	}
	v1 := map[string]schema{
		"dags":        {"DAG", nil, v1DAG},
		"dag_runs":    {"DAGRun", nil, v1DAGRun},
		"tasks":       {"Task", nil, v1Task},
		"pools":       {"Pool", nil, v1Pool},
		"connections": {"ConnectionCollectionItem", nil, v1ConnectionCollectionItem},
		"variables":   {"Variable", nil, v1Variable},
	}
	v1Details := schema{"DAGDetail", nil, concat(v1DAG, v1DAGDetailExtra)}

	t.Run("testdata/v2.json", func(t *testing.T) {
		var store map[string]json.RawMessage
		readJSON(t, "testdata/v2.json", &store)
		checkStore(t, store, v2, v2Details, schema{"DagTagResponse", v2DagTagResponse, nil})
	})
	t.Run("testdata/v1.json", func(t *testing.T) {
		var store map[string]json.RawMessage
		readJSON(t, "testdata/v1.json", &store)
		checkStore(t, store, v1, v1Details, schema{"Tag", []string{"name"}, nil})
	})
	t.Run("quickstart export", func(t *testing.T) {
		dir := "../../examples/quickstart/airflow"
		for _, file := range []string{"dags.json", "dagRuns.json", "backfills.json", "pools.json", "connections.json", "variables.json"} {
			var coll map[string]json.RawMessage
			readJSON(t, filepath.Join(dir, file), &coll)
			checkCollection(t, file, coll, v2)
		}
		details, _ := filepath.Glob(filepath.Join(dir, "dags", "*", "details.json"))
		tasks, _ := filepath.Glob(filepath.Join(dir, "dags", "*", "tasks.json"))
		if len(details) == 0 || len(tasks) == 0 {
			t.Fatal("quickstart export has no details or tasks")
		}
		for _, f := range details {
			var obj map[string]any
			readJSON(t, f, &obj)
			v2Details.check(t, f, obj)
		}
		for _, f := range tasks {
			var coll map[string]json.RawMessage
			readJSON(t, f, &coll)
			checkCollection(t, f, coll, v2)
		}
	})
}

func checkStore(t *testing.T, store map[string]json.RawMessage, schemas map[string]schema, details, tag schema) {
	t.Helper()
	for _, key := range []string{"dags", "dag_runs", "backfills", "pools", "connections", "variables"} {
		if raw, ok := store[key]; ok {
			var objs []map[string]any
			_ = json.Unmarshal(raw, &objs)
			for i, o := range objs {
				schemas[key].check(t, key+"["+strconv.Itoa(i)+"]", o)
				if key == "dags" {
					for _, tg := range o["tags"].([]any) {
						tag.check(t, key+"["+strconv.Itoa(i)+"].tags", tg.(map[string]any))
					}
				}
			}
		}
	}
	var dets map[string]map[string]any
	_ = json.Unmarshal(store["details"], &dets)
	for id, o := range dets {
		details.check(t, "details "+id, o)
	}
	var tasks map[string][]map[string]any
	_ = json.Unmarshal(store["tasks"], &tasks)
	for id, ts := range tasks {
		for _, o := range ts {
			schemas["tasks"].check(t, "tasks "+id, o)
		}
	}
}

// checkCollection checks a list answer: its items and total_entries.
func checkCollection(t *testing.T, where string, coll map[string]json.RawMessage, schemas map[string]schema) {
	t.Helper()
	var keys []string
	for k := range coll {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if _, ok := coll["total_entries"]; !ok {
		t.Errorf("%s: no total_entries (keys %v)", where, keys)
	}
	for _, k := range keys {
		if k == "total_entries" {
			continue
		}
		s, ok := schemas[k]
		if !ok {
			t.Errorf("%s: unexpected key %q", where, k)
			continue
		}
		var objs []map[string]any
		_ = json.Unmarshal(coll[k], &objs)
		for _, o := range objs {
			s.check(t, where, o)
		}
	}
}

func readJSON(t *testing.T, path string, out any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func concat(a, b []string) []string { return append(slices.Clone(a), b...) }
