package airflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
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
}

// errBudget ends a collection that ran past the source's budget.
var errBudget = errors.New("the source's budget ran out")

// Units opens the source (a connection or version detection that fails,
// or a missing export, fails the source) and declares its units: the DAG
// listing ("dags", every DAG with its runs and backfill objects under
// it) and each deployment-wide listing that is on (see resources.go).
// The budget starts here and bounds every unit.
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
	c.src, c.proj = src, nil
	if h, ok := src.(*httpAPI); ok {
		h.note = c.addNote
		c.proj = newProjection(ctx, c, h)
	}
	units := []string{scopeDAGs}
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

// budgeted is ctx ended by what is left of the source's budget too.
func (c *Airflow) budgeted(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, c.Budget-c.started.Elapsed(), fmt.Errorf("%w (budget %s)", errBudget, c.Budget))
}

// CollectUnit reads the DAGs, or one deployment-wide listing, within what
// is left of the budget. The DAGs come first in the units, so they come
// first within the budget too.
func (c *Airflow) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	ctx, cancel := c.budgeted(ctx)
	defer cancel()
	if unit == scopeDAGs {
		return c.collectDAGs(ctx, sink)
	}
	return c.collectResource(ctx, unit, sink)
}

// collectDAGs lists DAGs, backfill runs and backfill objects and emits
// the ones that are backfill machinery or a catch-up risk. What could not
// be read in time is an error at its unit.
func (c *Airflow) collectDAGs(ctx context.Context, sink collectors.Sink) error {
	src, proj := c.src, c.proj
	// The DAG listing and the backfill run listing are read at once:
	// neither needs the other, and both page concurrency at a time.
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
		return c.fail(ctx, "list DAGs", err)
	case err != nil:
		// Everything this source reports of DAGs lies under the listing.
		return c.wrap(ctx, "list DAGs", err)
	}
	infos := make(map[string]*dagInfo, len(dags))
	order := make([]string, 0, len(dags))
	for _, d := range dags {
		if infos[d.DagID] != nil {
			continue
		}
		info := &dagInfo{dag: d, labels: tagLabels(d.Tags)}
		info.backfillID, info.how, info.selected = c.matchDAG(d, info.labels)
		infos[d.DagID] = info
		order = append(order, d.DagID)
	}
	dags = nil // the infos hold what is needed
	sink.AddRead(scopeDAGs, readDAGs, len(order), 0)

	runs := c.backfillRuns(ctx, sink, infos, rs, runsErr)
	if proj != nil {
		calls := 0
		for _, id := range order {
			calls += c.dagCalls(infos[id], proj.a.version == versionV2)
		}
		proj.perDAG(calls)
	}
	c.enrich(ctx, src, sink, infos, order)
	runs = mergeActiveRuns(runs, infos, order)

	now := c.env.Now()
	for _, id := range order {
		info := infos[id]
		if info.selected || c.catchupRisk(info.dag, now) {
			sink.AddArtifact(c.dagArtifact(info))
		}
	}
	for _, r := range runs {
		sink.AddArtifact(c.runArtifact(r, infos[r.DagID]))
	}
	for _, id := range order {
		for _, b := range infos[id].backfills {
			if bf, ok := c.backfill(b, infos[id]); ok {
				sink.AddBackfill(bf)
			}
		}
	}
	return nil
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

// backfillRuns marks the DAGs of the backfill runs. The listing is one
// over every DAG, so its failure is at the DAG listing's unit.
func (c *Airflow) backfillRuns(ctx context.Context, sink collectors.Sink, infos map[string]*dagInfo, rs []dagRunJSON, err error) []dagRunJSON {
	if err != nil {
		sink.AddError(scopeDAGs, c.wrap(ctx, "list backfill runs", err))
	}
	perDAG := map[string]int{}
	for _, r := range rs {
		perDAG[r.DagID]++
		if info := infos[r.DagID]; info != nil {
			info.hasRuns = true
			info.bfRuns = true
		}
	}
	if err == nil {
		for id, n := range perDAG {
			sink.AddRead(runsScope(id), readBackfillRuns, n, 0)
		}
	}
	return rs
}

// mergeActiveRuns adds the queued or running runs of backfill DAGs (BF015
// needs those whatever their type) to the backfill runs, once each,
// sorted.
func mergeActiveRuns(runs []dagRunJSON, infos map[string]*dagInfo, order []string) []dagRunJSON {
	seen := make(map[string]bool, len(runs))
	out := make([]dagRunJSON, 0, len(runs))
	add := func(r dagRunJSON) {
		if k := runKey(r); !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	for _, r := range runs {
		add(r)
	}
	for _, id := range order {
		for _, r := range infos[id].activeRuns {
			add(r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].DagID != out[j].DagID {
			return out[i].DagID < out[j].DagID
		}
		return out[i].DagRunID < out[j].DagRunID
	})
	return out
}

// enrich makes the per-DAG calls the listings do not cover, at most
// Concurrency at a time: active runs of backfill DAGs; details (catchup,
// start date) for backfill DAGs and, for the catch-up check, every
// scheduled DAG; tasks (pools) for DAGs with emitted runs; and Airflow 3
// backfill objects. Once the budget or the run's deadline is spent, each
// DAG not yet read is an error at its unit.
func (c *Airflow) enrich(ctx context.Context, src api, sink collectors.Sink, infos map[string]*dagInfo, order []string) {
	jobs := make(chan *dagInfo)
	var wg sync.WaitGroup
	for range c.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for info := range jobs {
				if ctx.Err() != nil {
					sink.AddError(dagScope(info.dag.DagID), c.wrap(ctx, "DAG "+info.dag.DagID+" not read", context.Cause(ctx)))
					continue
				}
				c.enrichOne(ctx, src, sink, info)
			}
		}()
	}
	for _, id := range order {
		if info := infos[id]; c.needsCalls(info) {
			jobs <- info
		}
	}
	close(jobs)
	wg.Wait()
}

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
// runs are tied to their backfill object, at its runs too.
func (c *Airflow) enrichOne(ctx context.Context, src api, sink collectors.Sink, info *dagInfo) {
	id := info.dag.DagID
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
		}
	}
	if info.selected || info.hasRuns {
		ts, err := src.dagTasks(ctx, id)
		if err != nil {
			sink.AddError(dagScope(id), c.wrap(ctx, "tasks of DAG "+id, err))
		} else if ts != nil {
			info.pools, info.dependsOn, info.tasksKnown = taskPools(ts), dependsOnPast(ts), true
			sink.AddRead(dagScope(id), readTasks, len(ts), 0)
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
