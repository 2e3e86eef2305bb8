package airflow

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The JSON shapes below follow Airflow's published OpenAPI descriptions:
// airflow/api_connexion/openapi/v1.yaml (Airflow 2) and
// airflow-core/.../v2-rest-api-generated.yaml (Airflow 3). One struct
// carries the fields of both versions; the few that differ are noted.

// The collections below are checked after decoding: a list that is
// absent or null (an answer of `null`, a proxy's `{}`) is an error, never
// an empty listing; `[]` is an empty listing.

// dagCollection is DAGCollection (v1) / DAGCollectionResponse (v2).
type dagCollection struct {
	DAGs         []dagJSON `json:"dags"`
	TotalEntries int       `json:"total_entries"`
}

func (c *dagCollection) check() error { return needList(c.DAGs == nil, "dags") }

// dagJSON is DAG and DAGDetail (v1) / DAGResponse and DAGDetailsResponse (v2).
type dagJSON struct {
	DagID          string    `json:"dag_id"`
	DagDisplayName string    `json:"dag_display_name"`
	IsPaused       *bool     `json:"is_paused"`
	IsActive       *bool     `json:"is_active"` // v1: seen by the scheduler
	IsStale        *bool     `json:"is_stale"`  // v2: the inverse of is_active
	Owners         []string  `json:"owners"`
	Description    *string   `json:"description"`
	Fileloc        string    `json:"fileloc"`
	Tags           []tagJSON `json:"tags"`
	MaxActiveRuns  *int      `json:"max_active_runs"`
	MaxActiveTasks *int      `json:"max_active_tasks"`
	// v1 schedule: a CronExpression, TimeDelta or RelativeDelta object.
	ScheduleInterval *scheduleInterval `json:"schedule_interval"`
	// v2 schedule: the timetable's summary, e.g. "0 2 * * *" or "@daily".
	TimetableSummary     *string    `json:"timetable_summary"`
	TimetableDescription *string    `json:"timetable_description"`
	LastParsedTime       *time.Time `json:"last_parsed_time"`
	// Details only (GET /dags/{dag_id}/details).
	Catchup   *bool      `json:"catchup"`
	StartDate *time.Time `json:"start_date"`
	EndDate   *time.Time `json:"end_date"`
	Timezone  *string    `json:"timezone"`
}

// tagJSON is Tag (v1) / DagTagResponse (v2).
type tagJSON struct {
	Name string `json:"name"`
}

// scheduleInterval is v1's ScheduleInterval (discriminated by __type).
type scheduleInterval struct {
	Type         string `json:"__type"`
	Value        string `json:"value"` // CronExpression
	Days         int    `json:"days"`
	Seconds      int    `json:"seconds"`
	Microseconds int    `json:"microseconds"`
	Months       int    `json:"months"` // RelativeDelta
	Years        int    `json:"years"`
}

func (s *scheduleInterval) String() string {
	switch s.Type {
	case "CronExpression":
		return s.Value
	case "TimeDelta":
		d := time.Duration(s.Days)*24*time.Hour + time.Duration(s.Seconds)*time.Second
		if d%(24*time.Hour) == 0 {
			return fmt.Sprintf("every %dd", d/(24*time.Hour))
		}
		return "every " + d.String()
	case "RelativeDelta":
		return fmt.Sprintf("relativedelta(years=%d, months=%d, days=%d)", s.Years, s.Months, s.Days)
	}
	return s.Value
}

// taskCollection is TaskCollection (v1) / TaskCollectionResponse (v2).
type taskCollection struct {
	Tasks []taskJSON `json:"tasks"`
}

func (c *taskCollection) check() error { return needList(c.Tasks == nil, "tasks") }

// taskJSON keeps the fields of Task (v1) / TaskResponse (v2) we read.
type taskJSON struct {
	TaskID        string  `json:"task_id"`
	Pool          *string `json:"pool"`
	DependsOnPast bool    `json:"depends_on_past"`
}

// dagRunCollection is DAGRunCollection (v1) / DAGRunCollectionResponse (v2).
type dagRunCollection struct {
	DagRuns      []dagRunJSON `json:"dag_runs"`
	TotalEntries int          `json:"total_entries"`
}

func (c *dagRunCollection) check() error { return needList(c.DagRuns == nil, "dag_runs") }

// dagRunJSON is DAGRun (v1) / DAGRunResponse (v2).
type dagRunJSON struct {
	DagRunID          string     `json:"dag_run_id"`
	DagID             string     `json:"dag_id"`
	LogicalDate       *time.Time `json:"logical_date"`
	ExecutionDate     *time.Time `json:"execution_date"` // v1, deprecated alias of logical_date
	QueuedAt          *time.Time `json:"queued_at"`      // v2
	RunAfter          *time.Time `json:"run_after"`      // v2
	StartDate         *time.Time `json:"start_date"`
	EndDate           *time.Time `json:"end_date"`
	DataIntervalStart *time.Time `json:"data_interval_start"`
	DataIntervalEnd   *time.Time `json:"data_interval_end"`
	RunType           string     `json:"run_type"`
	State             string     `json:"state"`
	Conf              runConf    `json:"conf"`
}

// backfillCollection is BackfillCollectionResponse (v2 only).
type backfillCollection struct {
	Backfills    []backfillJSON `json:"backfills"`
	TotalEntries int            `json:"total_entries"`
}

func (c *backfillCollection) check() error { return needList(c.Backfills == nil, "backfills") }

// check refuses details without their DAG (an answer of `null` or `{}`).
func (d *dagJSON) check() error {
	if d.DagID == "" {
		return errors.New("no dag_id in the answer (empty or null)")
	}
	return nil
}

// checker is an answer that can say it is malformed.
type checker interface{ check() error }

func needList(missing bool, key string) error {
	if missing {
		return fmt.Errorf("no %q list in the answer (absent or null)", key)
	}
	return nil
}

// backfillJSON is BackfillResponse (v2 only).
type backfillJSON struct {
	ID                int            `json:"id"`
	DagID             string         `json:"dag_id"`
	FromDate          time.Time      `json:"from_date"`
	ToDate            time.Time      `json:"to_date"`
	DagRunConf        map[string]any `json:"dag_run_conf"`
	IsPaused          bool           `json:"is_paused"`
	ReprocessBehavior string         `json:"reprocess_behavior"` // none, failed, completed
	MaxActiveRuns     int            `json:"max_active_runs"`
	CreatedAt         time.Time      `json:"created_at"`
	CompletedAt       *time.Time     `json:"completed_at"`
	UpdatedAt         time.Time      `json:"updated_at"`
}

// tokenResponse is the LoginResponse of POST /auth/token (Airflow 3).
type tokenResponse struct {
	AccessToken string `json:"access_token"`
}

// stale reports whether the scheduler no longer sees the DAG's file.
func (d *dagJSON) stale() bool {
	if d.IsStale != nil {
		return *d.IsStale
	}
	return d.IsActive != nil && !*d.IsActive
}

func (d *dagJSON) paused() bool { return d.IsPaused != nil && *d.IsPaused }

// schedule returns the schedule expression, "" when the DAG is only
// triggered (no timetable, or an asset/dataset trigger).
func (d *dagJSON) schedule() string {
	if d.ScheduleInterval != nil {
		return d.ScheduleInterval.String()
	}
	if d.TimetableSummary != nil {
		s := strings.TrimSpace(*d.TimetableSummary)
		switch {
		case s == "", s == "None", s == "null":
			return ""
		case strings.HasPrefix(s, "Asset"), strings.HasPrefix(s, "Dataset"):
			return ""
		}
		return s
	}
	return ""
}

// triggerOnly reports a DAG with no schedule at all (schedule=None): it
// runs only when someone triggers it. Airflow 2 gives schedule_interval
// null and, from 2.3, the description "Never, external triggers only";
// Airflow 3 gives timetable_summary null or "None" with that description.
// A DAG scheduled on datasets or assets (schedule_interval null too on
// Airflow 2, "Triggered by datasets") runs by itself and is not one.
func (d *dagJSON) triggerOnly() bool {
	if d.schedule() != "" {
		return false
	}
	if d.TimetableDescription != nil && strings.TrimSpace(*d.TimetableDescription) != "" {
		return strings.HasPrefix(strings.TrimSpace(*d.TimetableDescription), "Never")
	}
	if d.TimetableSummary != nil {
		switch strings.TrimSpace(*d.TimetableSummary) {
		case "", "None", "null":
			return true
		}
		return false // an asset or dataset expression
	}
	return true // Airflow 2 before 2.3: schedule_interval null is schedule=None
}

// merge overlays what GET /details says on what the listing said.
func (d *dagJSON) merge(det dagJSON) {
	if det.Catchup != nil {
		d.Catchup = det.Catchup
	}
	if det.StartDate != nil {
		d.StartDate = det.StartDate
	}
	if det.EndDate != nil {
		d.EndDate = det.EndDate
	}
	if det.Timezone != nil {
		d.Timezone = det.Timezone
	}
	if det.MaxActiveRuns != nil {
		d.MaxActiveRuns = det.MaxActiveRuns
	}
	if d.TimetableDescription == nil && det.TimetableDescription != nil {
		d.TimetableDescription = det.TimetableDescription
	}
}

// owner joins the DAG's owners, leaving out Airflow's placeholder
// "airflow", which means nobody set one.
func (d *dagJSON) owner() string {
	var out []string
	for _, o := range d.Owners {
		o = strings.TrimSpace(o)
		if o != "" && !strings.EqualFold(o, "airflow") {
			out = append(out, o)
		}
	}
	return strings.Join(out, ", ")
}

// logical returns the run's logical date under either version's name.
func (r *dagRunJSON) logical() *time.Time {
	if r.LogicalDate != nil {
		return r.LogicalDate
	}
	return r.ExecutionDate
}
