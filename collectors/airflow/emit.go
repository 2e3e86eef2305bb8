package airflow

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Airflow-specific attribute keys, next to the well-known model.Attr* ones.
const (
	AttrDagID             = "dag_id"
	AttrPaused            = "paused"
	AttrStale             = "stale"
	AttrEndDate           = "end_date"
	AttrLogicalDate       = "logical_date"
	AttrDataIntervalStart = "data_interval_start"
	AttrDataIntervalEnd   = "data_interval_end"
	AttrRunStart          = "run_start_date"
	AttrRunEnd            = "run_end_date"
	AttrAirflowBackfillID = "airflow_backfill_id"
)

// tagLabels turns DAG tags into labels (see correlate.TagLabels).
func tagLabels(tags []tagJSON) map[string]string {
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = t.Name
	}
	return correlate.TagLabels(names, 0)
}

// matchDAG asks the selector whether a DAG is backfill machinery: by a
// tag carrying the id, a declared asset URI, the DAG id, or a bare tag
// that matches a name pattern (e.g. a tag "bf-1234").
func (c *Airflow) matchDAG(d dagJSON, labels map[string]string) (id, how string, ok bool) {
	if id, how, ok := c.env.Selector.Match(c.dagURI(d.DagID), d.DagID, labels); ok {
		return id, how, true
	}
	if id, ok := c.env.Selector.FromBareLabels(labels); ok {
		return id, "label", true
	}
	return "", "", false
}

// catchupRisk reports a scheduled, live DAG with catchup on and a start
// date older than CatchupMaxAge: unpausing or deploying it replays every
// missed interval (docs/practice.md, BF106).
func (c *Airflow) catchupRisk(d dagJSON, now time.Time) bool {
	return !d.stale() && d.schedule() != "" && d.Catchup != nil && *d.Catchup &&
		d.StartDate != nil && now.Sub(*d.StartDate) > c.CatchupMaxAge
}

func (c *Airflow) dagArtifact(info *dagInfo) model.Artifact {
	d := info.dag
	a := model.Artifact{
		Kind:        model.KindSchedulerJob,
		Scope:       dagScope(d.DagID),
		URI:         c.dagURI(d.DagID),
		Name:        d.DagID,
		BackfillID:  info.backfillID,
		Correlation: info.how,
		Owner:       d.owner(),
		Labels:      model.TagsOf(info.labels),
		State:       model.StateEnabled,
	}
	switch {
	case d.stale():
		a.State = model.StateDisabled
	case d.paused():
		a.State = model.StatePaused
	}
	a.SetAttr(AttrPaused, strconv.FormatBool(d.paused()))
	a.SetAttr(AttrStale, strconv.FormatBool(d.stale()))
	if s := d.schedule(); s != "" {
		a.SetAttr(model.AttrSchedule, s)
	}
	if d.triggerOnly() {
		// Not "still scheduled": it runs only when triggered (BF002,
		// not BF001, once its backfill is over).
		a.SetAttr(model.AttrTriggerOnly, "true")
	}
	if d.Catchup != nil {
		a.SetAttr(model.AttrCatchup, strconv.FormatBool(*d.Catchup))
	}
	setTime(&a, model.AttrStartDate, d.StartDate)
	setTime(&a, AttrEndDate, d.EndDate)
	if d.MaxActiveRuns != nil {
		a.SetAttr(model.AttrMaxActiveRuns, strconv.Itoa(*d.MaxActiveRuns))
	}
	if info.tasksKnown {
		a.SetAttr(model.AttrPool, strings.Join(info.pools, ","))
	}
	return a
}

func (c *Airflow) runArtifact(r dagRunJSON, info *dagInfo) model.Artifact {
	a := model.Artifact{
		Kind:  model.KindJobRun,
		Scope: runsScope(r.DagID),
		URI:   c.runURI(r.DagID, r.DagRunID),
		Name:  r.DagRunID,
	}
	if info != nil {
		a.Owner = info.dag.owner()
		a.BackfillID, a.Correlation = info.backfillID, info.how
	}
	labels := c.confLabels(r.Conf.decode())
	a.Labels = model.TagsOf(labels)
	if a.BackfillID == "" {
		if id, ok := c.env.Selector.FromLabels(labels); ok {
			a.BackfillID, a.Correlation = id, "label"
		} else if b := runBackfill(r, info); b != nil {
			if id := c.confID(b.DagRunConf); id != "" {
				a.BackfillID, a.Correlation = id, "label"
			}
		}
	}
	if r.State == "queued" || r.State == "running" {
		a.State = model.StateActive
	}
	if t := first(r.QueuedAt, r.StartDate); t != nil {
		a.CreatedAt = model.At(*t)
	}
	if r.EndDate != nil {
		a.ModifiedAt = model.At(*r.EndDate)
	}
	a.SetAttr(AttrDagID, r.DagID)
	a.SetAttr(model.AttrRunType, r.RunType)
	a.SetAttr(model.AttrRunState, r.State)
	setTime(&a, AttrLogicalDate, r.logical())
	setTime(&a, AttrDataIntervalStart, r.DataIntervalStart)
	setTime(&a, AttrDataIntervalEnd, r.DataIntervalEnd)
	setTime(&a, AttrRunStart, r.StartDate)
	setTime(&a, AttrRunEnd, r.EndDate)
	if info != nil {
		if info.tasksKnown {
			a.SetAttr(model.AttrPool, strings.Join(info.pools, ","))
		}
		if info.dag.MaxActiveRuns != nil {
			a.SetAttr(model.AttrMaxActiveRuns, strconv.Itoa(*info.dag.MaxActiveRuns))
		}
		// An Airflow 3 backfill caps its own runs, whatever the DAG says.
		if b := runBackfill(r, info); b != nil {
			a.SetAttr(model.AttrMaxActiveRuns, strconv.Itoa(b.MaxActiveRuns))
			a.SetAttr(AttrAirflowBackfillID, strconv.Itoa(b.ID))
		}
	}
	return a
}

// runBackfill finds the Airflow 3 backfill object a backfill run belongs
// to: same DAG, logical date within its range.
func runBackfill(r dagRunJSON, info *dagInfo) *backfillJSON {
	ld := r.logical()
	if info == nil || r.RunType != runTypeBackfill || ld == nil {
		return nil
	}
	for i, b := range info.backfills {
		if !ld.Before(b.FromDate) && !ld.After(b.ToDate) {
			return &info.backfills[i]
		}
	}
	return nil
}

// backfill turns an Airflow 3 backfill object into evidence of a
// backfill. Its id is the one in its dag_run_conf, else its DAG's; an
// object with neither is an unplanned backfill, reported under an id of
// its own (unplannedID) so rules can judge it. Every object also carries
// the scheduler's own view of it (scheduler.go).
func (c *Airflow) backfill(b backfillJSON, info *dagInfo) (model.Backfill, bool) {
	id := c.confID(b.DagRunConf)
	if id == "" {
		id = info.backfillID
	}
	unplanned := id == ""
	if unplanned {
		id = c.unplannedID(b)
	}
	bf := model.Backfill{
		ID:            id,
		Origin:        model.OriginScheduler,
		JobID:         b.DagID,
		Range:         model.Interval{Start: b.FromDate.UTC(), End: b.ToDate.UTC()},
		Owner:         info.dag.owner(),
		Status:        model.StatusRunning,
		Timeline:      model.Timeline{StartedAt: b.CreatedAt},
		Concurrency:   b.MaxActiveRuns,
		DependsOnPast: info.dependsOn,
		Source:        model.Location{Path: backfillScope(info.dag.DagID, b.ID)},
	}
	if info.tasksKnown {
		bf.Pool = strings.Join(info.pools, ",")
	}
	if b.CompletedAt != nil {
		bf.Status = model.StatusReplayed
		bf.Timeline.CompletedAt = *b.CompletedAt
	}
	bf.Notes = append(bf.Notes, fmt.Sprintf("airflow backfill %d of DAG %s: reprocess_behavior=%s (%s)",
		b.ID, b.DagID, b.ReprocessBehavior, reprocessMeaning(b.ReprocessBehavior)))
	if b.IsPaused && b.CompletedAt == nil {
		bf.Notes = append(bf.Notes, fmt.Sprintf("airflow backfill %d is paused in the scheduler", b.ID))
	}
	bf.ReprocessBehavior = b.ReprocessBehavior
	bf.Scheduled = []model.SchedulerView{c.schedulerView(b, info)}
	if unplanned {
		bf.Notes = append(bf.Notes, unplannedNote(b))
	}
	return bf, true
}

func reprocessMeaning(rb string) string {
	switch rb {
	case "none", "":
		return "only intervals without a run are created"
	case "failed":
		return "intervals whose latest run failed are run again"
	case "completed":
		return "every interval is run again, also those that succeeded"
	}
	return "unknown behaviour"
}

// confLabels keeps only the run conf entries whose key is a backfill id
// label key: a conf can hold anything, secrets included.
func (c *Airflow) confLabels(conf map[string]any) map[string]string {
	var out map[string]string
	for k, v := range conf {
		s, ok := v.(string)
		if !ok || s == "" {
			continue
		}
		for _, want := range c.env.Selector.LabelKeys {
			if foldKey(k) == foldKey(want) {
				if out == nil {
					out = map[string]string{}
				}
				out[k] = s
			}
		}
	}
	return out
}

func (c *Airflow) confID(conf map[string]any) string {
	id, _ := c.env.Selector.FromLabels(c.confLabels(conf))
	return id
}

func foldKey(k string) string { return strings.ReplaceAll(strings.ToLower(k), "-", "_") }

func setTime(a *model.Artifact, key string, t *time.Time) {
	if t != nil && !t.IsZero() {
		a.SetAttr(key, t.UTC().Format(time.RFC3339))
	}
}

func first(ts ...*time.Time) *time.Time {
	for _, t := range ts {
		if t != nil && !t.IsZero() {
			return t
		}
	}
	return nil
}
