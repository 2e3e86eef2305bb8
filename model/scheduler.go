package model

// SchedulerView is what a scheduler reports running for a backfill: its
// own object's settings, kept beside the plan's declared ones so rules can
// compare them (a plan that says concurrency 4 against a scheduler running
// 50 active runs). Correlation keeps every view on the merged backfill.
type SchedulerView struct {
	// Source is the collector instance and the object's path in it.
	Source Location `json:"source"`
	// Object names the scheduler's object for people: "airflow backfill 12
	// of DAG orders_daily".
	Object        string `json:"object,omitempty"`
	MaxActiveRuns int    `json:"max_active_runs,omitempty"` // 0: not known
	Pool          string `json:"pool,omitempty"`            // comma-separated when tasks use several
	// DependsOnPast is nil when the scheduler did not say.
	DependsOnPast *bool `json:"depends_on_past,omitempty"`
	// ReprocessBehavior is Airflow 3's: none, failed or completed.
	ReprocessBehavior string `json:"reprocess_behavior,omitempty"`
	Running           bool   `json:"running,omitempty"`
	Paused            bool   `json:"paused,omitempty"`
	// Targets are the tables the replay's runs wrote, where the scheduler
	// or a job history knows them (TableRef form).
	Targets []string `json:"targets,omitempty"`
}
