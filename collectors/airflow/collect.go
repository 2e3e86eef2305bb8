package airflow

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/collectors"
)

// Scopes a partial failure is limited to. DAG artifacts are in scopeDAGs,
// run artifacts in scopeRuns; a failed detail, task or backfill call for
// one DAG is reported under "dags/<dag_id>" and taints neither listing.
const (
	scopeDAGs = "dags"
	scopeRuns = "dagRuns"
)

const runTypeBackfill = "backfill"

// dagInfo is what is known of one DAG while collecting.
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
}

// Collect lists DAGs, backfill runs and backfill objects and emits the
// ones that are backfill machinery or a catch-up risk.
func (c *Airflow) Collect(ctx context.Context, sink collectors.Sink) error {
	src, err := c.open(ctx)
	if err != nil {
		return c.fail("connect", err)
	}
	dags, err := src.listDAGs(ctx)
	if err != nil {
		return c.fail("list DAGs", err)
	}
	infos := make(map[string]*dagInfo, len(dags))
	order := make([]string, 0, len(dags))
	for _, d := range dags {
		info := &dagInfo{dag: d, labels: tagLabels(d.Tags)}
		info.backfillID, info.how, info.selected = c.matchDAG(d, info.labels)
		infos[d.DagID] = info
		order = append(order, d.DagID)
	}

	runs := c.collectRuns(ctx, src, sink, infos)
	c.enrich(ctx, src, sink, infos)

	now := c.Now()
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
			return nil, fmt.Errorf("export_dir: %q is not a readable directory", dir)
		}
		return dirAPI{dir: dir}, nil
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

// fail builds the error of a total failure: it names the source and, on
// an authentication failure, the config keys to check (never a secret).
func (c *Airflow) fail(what string, err error) error {
	hint := ""
	if isStatus(err, http.StatusUnauthorized) || isStatus(err, http.StatusForbidden) {
		switch {
		case c.TokenEnv != "":
			hint = fmt.Sprintf("; check the token in %s", c.TokenEnv)
		case c.PasswordEnv != "":
			hint = fmt.Sprintf("; check username %q and the password in %s, and that the user may read DAGs", c.Username, c.PasswordEnv)
		default:
			hint = "; set username and password_env (or token_env)"
		}
	}
	return fmt.Errorf("airflow %s: %s: %w%s", c.where(), what, err, hint)
}

// collectRuns lists the runs to emit: every run of type backfill, and the
// queued or running runs of backfill DAGs (BF015 needs those whatever
// their type). A failed listing degrades the dagRuns scope.
func (c *Airflow) collectRuns(ctx context.Context, src api, sink collectors.Sink, infos map[string]*dagInfo) []dagRunJSON {
	seen := map[string]bool{}
	var out []dagRunJSON
	add := func(rs []dagRunJSON, onlySelected bool) {
		for _, r := range rs {
			info := infos[r.DagID]
			if onlySelected && (info == nil || !info.selected) {
				continue
			}
			key := r.DagID + "\x00" + r.DagRunID
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, r)
			if info != nil {
				info.hasRuns = true
				info.bfRuns = info.bfRuns || r.RunType == runTypeBackfill
			}
		}
	}

	f := runFilter{runType: runTypeBackfill}
	if c.RunLookback > 0 {
		f.updatedAfter = c.Now().Add(-c.RunLookback)
	}
	rs, err := src.listRuns(ctx, f)
	add(rs, false)
	if err != nil {
		sink.AddError(scopeRuns, fmt.Errorf("airflow %s: list backfill runs: %w", c.where(), err))
	}

	if slices.ContainsFunc(mapValues(infos), func(i *dagInfo) bool { return i.selected }) {
		rs, err := src.listRuns(ctx, runFilter{states: []string{"queued", "running"}})
		add(rs, true)
		if err != nil {
			sink.AddError(scopeRuns, fmt.Errorf("airflow %s: list active runs: %w", c.where(), err))
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
// Concurrency at a time: details (catchup, start date) for backfill DAGs
// and, for the catch-up check, every scheduled DAG; tasks (pools) for
// DAGs with emitted runs; and Airflow 3 backfill objects.
func (c *Airflow) enrich(ctx context.Context, src api, sink collectors.Sink, infos map[string]*dagInfo) {
	sem := make(chan struct{}, c.Concurrency)
	var wg sync.WaitGroup
	for _, info := range infos {
		d := &info.dag
		needDetails := (info.selected || (c.CatchupCheck && !d.stale() && d.schedule() != "")) &&
			(d.Catchup == nil || d.StartDate == nil)
		needTasks := info.selected || info.hasRuns
		needBackfills := info.selected || info.bfRuns
		if !needDetails && !needTasks && !needBackfills {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			c.enrichOne(ctx, src, sink, info, needDetails, needTasks, needBackfills)
		}()
	}
	wg.Wait()
}

func (c *Airflow) enrichOne(ctx context.Context, src api, sink collectors.Sink, info *dagInfo, details, tasks, backfills bool) {
	id := info.dag.DagID
	scope := "dags/" + id
	if details {
		det, err := src.dagDetails(ctx, id)
		switch {
		case err != nil:
			sink.AddError(scope, fmt.Errorf("airflow %s: details of DAG %s: %w", c.where(), id, err))
		case det != nil:
			info.dag.merge(*det)
		}
	}
	if tasks {
		ts, err := src.dagTasks(ctx, id)
		if err != nil {
			sink.AddError(scope, fmt.Errorf("airflow %s: tasks of DAG %s: %w", c.where(), id, err))
		} else if ts != nil {
			info.pools, info.dependsOn, info.tasksKnown = taskPools(ts), dependsOnPast(ts), true
		}
	}
	if backfills {
		bs, _, err := src.listBackfills(ctx, id)
		if err != nil {
			sink.AddError(scope, fmt.Errorf("airflow %s: backfills of DAG %s: %w", c.where(), id, err))
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
	return slices.ContainsFunc(ts, func(t taskJSON) bool { return t.DependsOnPast })
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
