package model

import (
	"fmt"
	"slices"
	"strings"
)

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

// Difference is one setting a scheduler runs otherwise than a plan says.
type Difference struct {
	Key     string `json:"key"`     // the plan's key: concurrency, pool, depends_on_past, reprocess_behavior
	Planned string `json:"planned"` // the plan's value
	Runs    string `json:"runs"`    // the scheduler's, with its own name: "max_active_runs 16"
	// Riskier says the scheduler's way is the riskier one: more runs at
	// once than planned, no ordering where the plan needs it, or intervals
	// that already succeeded run again.
	Riskier bool `json:"riskier"`
}

// Differences compares a plan with the scheduler's settings. A setting
// either side leaves unknown is no difference: the audit (BF115) and the
// plan preview judge only what both say.
func (v SchedulerView) Differences(b *Backfill) []Difference {
	var out []Difference
	if b.Concurrency > 0 && v.MaxActiveRuns > 0 && v.MaxActiveRuns != b.Concurrency {
		out = append(out, Difference{"concurrency", fmt.Sprint(b.Concurrency), fmt.Sprintf("max_active_runs %d", v.MaxActiveRuns), v.MaxActiveRuns > b.Concurrency})
	}
	if b.Pool != "" && v.Pool != "" && !samePools(b.Pool, v.Pool) {
		out = append(out, Difference{"pool", fmt.Sprintf("%q", b.Pool), fmt.Sprintf("pool %q", v.Pool), false})
	}
	if v.DependsOnPast != nil && *v.DependsOnPast != b.DependsOnPast {
		out = append(out, Difference{"depends_on_past", fmt.Sprint(b.DependsOnPast), fmt.Sprintf("depends_on_past %t", *v.DependsOnPast), b.DependsOnPast})
	}
	if b.ReprocessBehavior != "" && v.ReprocessBehavior != "" && b.ReprocessBehavior != v.ReprocessBehavior {
		out = append(out, Difference{"reprocess_behavior", b.ReprocessBehavior, "reprocess_behavior " + v.ReprocessBehavior, v.ReprocessBehavior == "completed"})
	}
	return out
}

// samePools compares a plan's pool with the pools a scheduler's tasks use
// (comma-separated): the same set.
func samePools(plan, sched string) bool {
	split := func(s string) []string {
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(split(plan), split(sched))
}
