package airflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

const runTypeBackfill = "backfill"

// Kinds of objects the units report reading (besides pools, connections
// and variables, which their units are named for).
const (
	readDAGs         = "DAGs"          // the DAG listing
	readDetails      = "DAG details"   // GET /dags/<id>/details, at the DAG
	readTasks        = "tasks"         // a DAG's tasks, at the DAG
	readBackfillRuns = "backfill runs" // runs of type backfill, at their DAG's runs
	readActiveRuns   = "active runs"   // queued or running runs of a matched DAG, at its runs
	readBackfills    = "backfills"     // Airflow 3 backfill objects, at the DAG's backfills
)

// dagInfo is what is known of one DAG while collecting. The per-DAG calls
// write only their own DAG's info, one worker per DAG.
type dagInfo struct {
	dag        dagJSON
	labels     map[string]string
	backfillID string
	how        string // how backfillID was found: label, asset, name
	selected   bool   // backfill machinery by the selector
	hasRuns    bool   // has runs this collection emits
	bfRuns     bool   // has runs of type backfill
	pools      []string
	dependsOn  bool // a task depends on its past run
	tasksKnown bool
	backfills  []backfillJSON
	activeRuns []dagRunJSON // queued or running, from the DAG's own listing
	unit       bool         // has calls of its own to make: a unit, dags/<dag_id>
}

// errBudget ends a collection that ran past the source's budget.
var errBudget = errors.New("the source's budget ran out")

// dagListing is what Units read of the DAGs, for the units to report: every
// DAG of the listing with what the listings say of it, and the backfill
// runs by DAG. Units writes it; each DAG's unit then writes only its own
// DAG's info, and the DAG listing's unit only reads the DAGs that have no
// unit of their own.
type dagListing struct {
	err     error // the DAG listing's failure: "dags" is the only DAG unit
	infos   map[string]*dagInfo
	order   []string                // DAG ids in listing order
	units   map[string]*dagInfo     // the DAGs that are units, by unit
	runs    map[string][]dagRunJSON // backfill runs by DAG id, listed or not
	runsErr error                   // the backfill run listing's failure
}

// Units opens the source (a connection or version detection that fails,
// or a missing export, fails the source), lists the DAGs and the backfill
// runs across them, one listing each, and declares the units: the DAG
// listing ("dags"), one unit per DAG that has calls of its own to make
// (dags/<dag_id>: its details, tasks, active runs and backfill objects),
// and each deployment-wide listing that is on (see resources.go). A DAG
// listing that fails does not fail the source: "dags" is then the only
// DAG unit and fails with it, and the deployment-wide listings still
// answer. The budget starts here and bounds every unit.
func (c *Airflow) Units(ctx context.Context) ([]string, error) {
	c.notesMu.Lock()
	c.notes = nil
	c.notesMu.Unlock()
	c.started = remote.StartStopwatch()
	bctx, cancel := c.budgeted(ctx)
	defer cancel()
	src, err := c.open(bctx)
	if err != nil {
		return nil, c.fail(bctx, "connect", err)
	}
	c.src, c.proj, c.dags = src, nil, nil
	if h, ok := src.(*httpAPI); ok {
		h.note = c.addNote
		c.proj = newProjection(ctx, c, h)
	}
	c.dags = c.listDAGs(bctx)
	units := []string{scopeDAGs}
	for _, id := range c.dags.order {
		if c.dags.infos[id].unit {
			units = append(units, dagScope(id))
		}
	}
	if _, ok := src.(resourceAPI); !ok {
		return units, nil
	}
	if c.Pools {
		units = append(units, scopePools)
	}
	if c.Connections {
		units = append(units, scopeConnections)
	}
	if c.Variables {
		units = append(units, scopeVariables)
	}
	return units, nil
}

// UnitConcurrency lets the framework read concurrency DAGs at once: each
// DAG's unit makes its calls one after another, and every call waits for
// one of the source's concurrency slots too (client.go).
func (c *Airflow) UnitConcurrency() int { return c.Concurrency }

// SharedUnits has every shard read the DAG listing's unit: each shard
// lists the DAGs to know its own, and a listing that failed in one shard
// must be said there (the DAGs it would have read are not answered).
func (c *Airflow) SharedUnits() []string { return []string{scopeDAGs} }

// budgeted is ctx ended by what is left of the source's budget too.
func (c *Airflow) budgeted(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, c.Budget-c.started.Elapsed(), fmt.Errorf("%w (budget %s)", errBudget, c.Budget))
}

// CollectUnit reads the DAG listing's unit, one DAG, or one
// deployment-wide listing, within what is left of the budget. The DAGs
// come first in the units, so they come first within the budget too.
func (c *Airflow) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	ctx, cancel := c.budgeted(ctx)
	defer cancel()
	switch {
	case unit == scopeDAGs:
		return c.collectListing(sink)
	case model.ScopeWithin(unit, scopeDAGs):
		return c.collectDAG(ctx, unit, sink)
	}
	return c.collectResource(ctx, unit, sink)
}

// listDAGs lists the DAGs and the backfill runs across them, at once:
// neither needs the other, and both page concurrency at a time. It marks
// the DAGs that have calls of their own to make, and tells the budget
// projection how many calls that is.
func (c *Airflow) listDAGs(ctx context.Context) *dagListing {
	src := c.src
	listCtx, stopRuns := context.WithCancel(ctx)
	defer stopRuns()
	runsDone := make(chan struct{})
	var rs []dagRunJSON
	var runsErr error
	go func() {
		defer close(runsDone)
		rs, runsErr = c.listBackfillRuns(listCtx, src)
	}()
	dags, err := src.listDAGs(ctx)
	if err != nil {
		stopRuns()
	}
	<-runsDone
	switch {
	case isAuthError(err):
		return &dagListing{err: c.fail(ctx, "list DAGs", err)}
	case err != nil:
		// Everything this source reports of DAGs lies under the listing.
		return &dagListing{err: c.wrap(ctx, "list DAGs", err)}
	}
	l := &dagListing{infos: make(map[string]*dagInfo, len(dags)), order: make([]string, 0, len(dags)),
		runs: map[string][]dagRunJSON{}}
	for _, d := range dags {
		if l.infos[d.DagID] != nil {
			continue
		}
		info := &dagInfo{dag: d, labels: tagLabels(d.Tags)}
		info.backfillID, info.how, info.selected = c.matchDAG(d, info.labels)
		l.infos[d.DagID] = info
		l.order = append(l.order, d.DagID)
	}
	// The backfill run listing is one over every DAG, so its failure is
	// at the DAG listing's unit; the runs it did list are still reported.
	if runsErr != nil {
		l.runsErr = c.wrap(ctx, "list backfill runs", runsErr)
	}
	for _, r := range rs {
		l.runs[r.DagID] = append(l.runs[r.DagID], r)
		if info := l.infos[r.DagID]; info != nil {
			info.hasRuns = true
			info.bfRuns = true
		}
	}
	l.units = map[string]*dagInfo{}
	calls := 0
	for _, id := range l.order {
		info := l.infos[id]
		if info.unit = c.needsCalls(info); info.unit {
			l.units[dagScope(id)] = info
		}
		if c.proj != nil {
			calls += c.dagCalls(info, c.proj.a.version == versionV2)
		}
	}
	if c.proj != nil {
		c.proj.perDAG(calls)
	}
	return l
}

// collectListing is the DAG listing's unit: it fails with the listing,
// and reports what the listings alone say: how many DAGs there are, the
// backfill run listing's failure, the DAGs with no call of their own to
// make that are a catch-up risk all the same, and the backfill runs of
// DAGs the DAG listing does not hold.
func (c *Airflow) collectListing(sink collectors.Sink) error {
	l := c.dags
	if l.err != nil {
		return l.err
	}
	sink.AddRead(scopeDAGs, readDAGs, len(l.order), 0)
	sink.AddError(scopeDAGs, l.runsErr)
	now := c.env.Now()
	for _, id := range l.order {
		if info := l.infos[id]; !info.unit && (info.selected || c.catchupRisk(info.dag, now)) {
			sink.AddArtifact(c.dagArtifact(info))
		}
	}
	var orphans []string
	for id := range l.runs {
		if l.infos[id] == nil {
			orphans = append(orphans, id)
		}
	}
	sort.Strings(orphans)
	for _, id := range orphans {
		if l.runsErr == nil {
			sink.AddRead(runsScope(id), readBackfillRuns, len(l.runs[id]), 0)
		}
		for _, r := range mergeActiveRuns(l.runs[id], nil) {
			sink.AddArtifact(c.runArtifact(r, nil))
		}
	}
	return nil
}

// collectDAG is one DAG's unit: it makes the DAG's calls and reports the
// DAG, its runs (backfill runs from the listing, active runs from its
// own) and its backfill objects. Once the budget or the run's deadline is
// spent, a DAG not yet read is an error at its unit, and what the
// listings say of it is still reported.
func (c *Airflow) collectDAG(ctx context.Context, unit string, sink collectors.Sink) error {
	l := c.dags
	info := l.units[unit]
	if info == nil {
		return fmt.Errorf("airflow %s: %s is not a DAG unit this collection declared", c.where(), unit)
	}
	id := info.dag.DagID
	var err error
	ds := &saidSink{Sink: sink}
	if l.runsErr == nil && len(l.runs[id]) > 0 {
		ds.AddRead(runsScope(id), readBackfillRuns, len(l.runs[id]), 0)
	}
	if ctx.Err() != nil {
		err = c.wrap(ctx, "DAG "+id+" not read", context.Cause(ctx))
	} else if empty := c.enrichOne(ctx, c.src, ds, info); !ds.said {
		// Every call answered that there was nothing (a DAG whose details
		// are gone): the unit read none of it.
		sink.AddRead(dagScope(id), empty, 0, 0)
	}
	if info.selected || c.catchupRisk(info.dag, c.env.Now()) {
		sink.AddArtifact(c.dagArtifact(info))
	}
	for _, r := range mergeActiveRuns(l.runs[id], info.activeRuns) {
		sink.AddArtifact(c.runArtifact(r, info))
	}
	for _, b := range info.backfills {
		if bf, ok := c.backfill(b, info); ok {
			sink.AddBackfill(bf)
		}
	}
	return err
}

// saidSink notes whether a unit read or failed anything.
type saidSink struct {
	collectors.Sink
	said bool
}

func (s *saidSink) AddRead(scope, what string, n, partial int) {
	s.said = true
	s.Sink.AddRead(scope, what, n, partial)
}

func (s *saidSink) AddError(scope string, err error) {
	if err != nil {
		s.said = true
	}
	s.Sink.AddError(scope, err)
}

// open picks the source: the export directory, or the API in the
// configured or detected version.
func (c *Airflow) open(ctx context.Context) (api, error) {
	if c.ExportDir != "" {
		dir := c.exportDir()
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("export_dir: %q is not a readable directory", c.ExportDir)
		}
		return newDirAPI(dir), nil
	}
	version := c.APIVersion
	if version == versionAuto || version == "" {
		v, err := detectVersion(ctx, c)
		if err != nil {
			return nil, err
		}
		version = v
	}
	return newHTTPAPI(c, version), nil
}

func isAuthError(err error) bool {
	return isStatus(err, http.StatusUnauthorized) || isStatus(err, http.StatusForbidden)
}

// fail builds the error of a total failure: it names the source and, on
// an authentication failure, the config keys to check (never a secret).
func (c *Airflow) fail(ctx context.Context, what string, err error) error {
	hint := ""
	if isAuthError(err) {
		switch {
		case c.TokenEnv != "":
			hint = fmt.Sprintf("; check the token in %s", c.TokenEnv)
		case c.PasswordEnv != "":
			hint = fmt.Sprintf("; check username %q and the password in %s, and that the user may read DAGs", c.Username, c.PasswordEnv)
		default:
			hint = "; set username and password_env (or token_env)"
		}
	}
	return fmt.Errorf("%w%s", c.wrap(ctx, what, err), hint)
}

// wrap names the source and the call in an error, and says so when the
// source's budget (not the call) is what ended it.
func (c *Airflow) wrap(ctx context.Context, what string, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errBudget) {
		return fmt.Errorf("airflow %s: %s: %w: %v", c.where(), what, cause, err)
	}
	return fmt.Errorf("airflow %s: %s: %w", c.where(), what, err)
}

// listBackfillRuns lists every run of type backfill, across DAGs, within
// the run lookback.
func (c *Airflow) listBackfillRuns(ctx context.Context, src api) ([]dagRunJSON, error) {
	f := runFilter{runType: runTypeBackfill}
	if c.RunLookback > 0 {
		f.updatedAfter = c.env.Now().Add(-c.RunLookback)
	}
	return src.listRuns(ctx, allDAGs, f)
}

// mergeActiveRuns adds a DAG's queued or running runs (BF015 needs those
// of a backfill DAG whatever their type) to its backfill runs, once
// each, sorted by run id.
func mergeActiveRuns(runs, active []dagRunJSON) []dagRunJSON {
	seen := make(map[string]bool, len(runs)+len(active))
	out := make([]dagRunJSON, 0, len(runs)+len(active))
	for _, r := range slices.Concat(runs, active) {
		if k := runKey(r); !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].DagRunID < out[j].DagRunID })
	return out
}

// needsCalls reports a DAG with calls of its own to make, the ones the
// listings do not cover: active runs of backfill DAGs; details (catchup,
// start date) for backfill DAGs and, for the catch-up check, every
// scheduled DAG; tasks (pools) for DAGs with runs to report; and Airflow
// 3 backfill objects. Each such DAG is a unit.
func (c *Airflow) needsCalls(info *dagInfo) bool {
	return c.needDetails(info) || info.selected || info.hasRuns || info.bfRuns
}

func (c *Airflow) needDetails(info *dagInfo) bool {
	d := &info.dag
	return (info.selected || (c.CatchupCheck && !d.stale() && d.schedule() != "")) &&
		(d.Catchup == nil || d.StartDate == nil)
}

// enrichOne makes one DAG's calls. Each failure is at the unit whose
// artifacts it leaves unsure: details and tasks at the DAG (its runs and
// backfill objects carry its pools and owner too), active runs at the
// DAG's runs, backfill objects at the DAG's backfills and, since backfill
// runs are tied to their backfill object, at its runs too. It returns the
// kind of the first call that answered there was nothing to read (a
// DAG's details gone with its file), or what it would have been.
func (c *Airflow) enrichOne(ctx context.Context, src api, sink collectors.Sink, info *dagInfo) (empty string) {
	id := info.dag.DagID
	empty = readDetails
	noted := false
	none := func(what string) {
		if !noted {
			empty, noted = what, true
		}
	}
	if info.selected {
		rs, err := src.listRuns(ctx, id, runFilter{states: []string{"queued", "running"}})
		if err != nil {
			sink.AddError(runsScope(id), c.wrap(ctx, "active runs of DAG "+id, err))
		} else {
			sink.AddRead(runsScope(id), readActiveRuns, len(rs), 0)
		}
		info.activeRuns = rs
		info.hasRuns = info.hasRuns || len(rs) > 0
	}
	if c.needDetails(info) {
		det, err := src.dagDetails(ctx, id)
		switch {
		case err != nil:
			sink.AddError(dagScope(id), c.wrap(ctx, "details of DAG "+id, err))
		case det != nil:
			info.dag.merge(*det)
			sink.AddRead(dagScope(id), readDetails, 1, 0)
		default:
			none(readDetails)
		}
	}
	if info.selected || info.hasRuns {
		ts, err := src.dagTasks(ctx, id)
		if err != nil {
			sink.AddError(dagScope(id), c.wrap(ctx, "tasks of DAG "+id, err))
		} else if ts != nil {
			info.pools, info.dependsOn, info.tasksKnown = taskPools(ts), dependsOnPast(ts), true
			sink.AddRead(dagScope(id), readTasks, len(ts), 0)
		} else {
			none(readTasks)
		}
	}
	if info.selected || info.bfRuns {
		bs, listed, err := src.listBackfills(ctx, id)
		if err != nil {
			err = c.wrap(ctx, "backfills of DAG "+id, err)
			sink.AddError(backfillsScope(id), err)
			if info.bfRuns {
				sink.AddError(runsScope(id), fmt.Errorf("%w (its backfill runs cannot be tied to their backfill objects)", err))
			}
		} else if listed { // Airflow 2 has none, an export may hold none
			sink.AddRead(backfillsScope(id), readBackfills, len(bs), 0)
		}
		info.backfills = bs
	}
	return empty
}

// taskPools returns the distinct pools a DAG's tasks run in, sorted. A
// task without a pool runs in Airflow's default_pool.
func taskPools(ts []taskJSON) []string {
	set := map[string]bool{}
	for _, t := range ts {
		p := "default_pool"
		if t.Pool != nil && strings.TrimSpace(*t.Pool) != "" {
			p = strings.TrimSpace(*t.Pool)
		}
		set[p] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func dependsOnPast(ts []taskJSON) bool {
	for _, t := range ts {
		if t.DependsOnPast {
			return true
		}
	}
	return false
}
