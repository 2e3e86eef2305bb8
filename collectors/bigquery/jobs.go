package bigquery

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	bq "google.golang.org/api/bigquery/v2"
)

// Defaults of the lineage section.
const (
	defaultJobsLookback = 30 * 24 * time.Hour
	defaultJobsRegion   = "region-us"
	defaultJobsMaxRows  = 50000
)

// Lineage configures reading lineage from the query jobs' history
// (INFORMATION_SCHEMA.JOBS_BY_PROJECT): which table each job read and
// which it wrote. It costs a query per project, so it is opt-in.
type Lineage struct {
	// Jobs enables it.
	Jobs bool `mapstructure:"jobs"`
	// Lookback is how far back jobs are read, from the audit's time.
	Lookback time.Duration `mapstructure:"lookback"`
	// Region is the jobs' region: region-us, region-eu, region-europe-west1
	// (or us, eu, europe-west1). Jobs of other regions are not seen.
	Region string `mapstructure:"region"`
	// MaxRows bounds the jobs read per project; more is an error at the
	// project's jobs unit, never a silent truncation.
	MaxRows int `mapstructure:"max_rows"`
}

// regionPattern and projectPattern are the identifiers spliced into the
// query text (a table path cannot be a query parameter); anything else
// that varies goes in as a parameter.
var (
	regionPattern  = regexp.MustCompile(`^region-[a-z]+(-[a-z]+[0-9]*)?$`)
	projectPattern = regexp.MustCompile(`^([a-z][a-z0-9.-]*[a-z0-9]:)?[a-z][a-z0-9-]*[a-z0-9]$`)
)

// checkLineage validates the lineage section and fills its defaults.
func (c *Collector) checkLineage() error {
	l := &c.Lineage
	if !l.Jobs {
		return nil
	}
	if l.Lookback < 0 {
		return fmt.Errorf("lineage.lookback: %s; expected a positive duration such as 30d", l.Lookback)
	}
	if l.Lookback == 0 {
		l.Lookback = defaultJobsLookback
	}
	if err := remote.CheckCount("lineage.max_rows", &l.MaxRows, defaultJobsMaxRows); err != nil {
		return err
	}
	region := strings.ToLower(strings.TrimSpace(l.Region))
	if region == "" {
		region = defaultJobsRegion
	}
	if !strings.HasPrefix(region, "region-") {
		region = "region-" + region
	}
	if !regionPattern.MatchString(region) {
		return fmt.Errorf("lineage.region: %q; expected a BigQuery region such as region-us, region-eu or region-europe-west1", l.Region)
	}
	l.Region = region
	for i, p := range c.Projects {
		if !projectPattern.MatchString(p) {
			return fmt.Errorf("projects[%d]: %q is not a project id BigQuery's INFORMATION_SCHEMA can be asked about (lineage.jobs)", i, p)
		}
	}
	if c.MaxBytesBilled <= 0 {
		return fmt.Errorf("max_bytes_billed: %d; expected a positive byte count (default %d) when lineage.jobs is true", c.MaxBytesBilled, int64(defaultMaxBytesBilled))
	}
	return nil
}

// jobsScope is the unit of one project's job history. The region is in
// it because another region's history is another view; the "@" keeps it
// apart from any dataset's scope (dataset ids are letters, digits and _).
func jobsScope(project, region string) string { return model.JoinScope(project, "jobs@"+region) }

// jobsQuery reads the finished, successful query jobs that wrote a named
// table since @since, newest first. creation_time is the view's partition
// column: filtering on it keeps the scan (and the bill) to the lookback.
// One more row than the cap is asked for, to tell "exactly the cap" from
// "more than the cap".
const jobsQuery = `SELECT
  j.job_id,
  j.end_time,
  j.statement_type,
  FORMAT('%%s.%%s.%%s', j.destination_table.project_id, j.destination_table.dataset_id, j.destination_table.table_id) AS destination_table,
  ARRAY(SELECT FORMAT('%%s.%%s.%%s', r.project_id, r.dataset_id, r.table_id) FROM UNNEST(j.referenced_tables) AS r) AS referenced_tables,
  ARRAY(SELECT FORMAT('%%s=%%s', l.key, l.value) FROM UNNEST(j.labels) AS l) AS labels
FROM ` + "`%s`.`%s`" + `.INFORMATION_SCHEMA.JOBS_BY_PROJECT AS j
WHERE j.creation_time >= @since
  AND j.job_type = 'QUERY'
  AND j.state = 'DONE'
  AND j.error_result IS NULL
  AND j.destination_table.table_id IS NOT NULL
  AND NOT STARTS_WITH(j.destination_table.dataset_id, '_')
ORDER BY j.end_time DESC
LIMIT @max_rows`

// jobRow is one job of the history.
type jobRow struct {
	id, statement, destination string
	end                        time.Time
	referenced                 []string
	labels                     map[string]string
}

// collectJobs emits the lineage of one project's query jobs: an edge from
// each table a job read to the table it wrote, and for each table written
// its latest build. A job labelled with a backfill id (backfill_id=bf-1234)
// is the replay's run: the latest one per table and backfill is also
// emitted as a build of that backfill, so the table counts among what the
// replay overwrote when its plan names no targets. Nothing is emitted
// unless the whole history was read: a partial history would date builds
// too early.
func (c *Collector) collectJobs(ctx context.Context, project string, sink collectors.Sink) {
	scope := jobsScope(project, c.Lineage.Region)
	rows, err := c.readJobs(ctx, project)
	if err != nil {
		sink.AddError(scope, fmt.Errorf("bigquery: job history of %s in %s: %w", project, c.Lineage.Region, err))
		return
	}
	sink.AddRead(scope, "jobs", len(rows), 0)
	edges := map[[2]string]bool{}
	built := map[string]bool{}
	replayed := map[[2]string]bool{}
	for _, r := range rows { // newest first: the first job seen per table is its latest
		child := model.TableRef(r.destination)
		if anonymous(child) {
			continue
		}
		if !built[child] {
			built[child] = true
			sink.AddBuild(model.Build{Table: child, Node: r.id, At: r.end, Status: "success", System: "bigquery", Scope: scope})
		}
		if id, ok := c.sel.FromLabels(r.labels); ok && !replayed[[2]string{child, string(model.ParseID(id))}] {
			replayed[[2]string{child, string(model.ParseID(id))}] = true
			sink.AddBuild(model.Build{Table: child, Node: r.id, At: r.end, Status: "success", System: "bigquery", Scope: scope, BackfillID: id})
		}
		for _, ref := range r.referenced {
			parent := model.TableRef(ref)
			if parent == child || anonymous(parent) || edges[[2]string{parent, child}] {
				continue
			}
			edges[[2]string{parent, child}] = true
			sink.AddEdge(model.Edge{Parent: parent, Child: child, System: "bigquery", Scope: scope, Via: r.id})
		}
	}
}

// anonymous reports a table in a hidden dataset (_script..., the anonymous
// datasets of cached results): BigQuery's scratch, nobody's lineage.
func anonymous(ref string) bool {
	parts := strings.Split(ref, ".")
	return len(parts) != 3 || strings.HasPrefix(parts[1], "_") || parts[2] == ""
}

// readJobs runs the history query under the cost guard Verify uses: a dry
// run refused above max_bytes_billed, then the query with
// maximumBytesBilled set, all within query_timeout.
func (c *Collector) readJobs(ctx context.Context, project string) ([]jobRow, error) {
	ctx, cancel := context.WithTimeout(ctx, c.QueryTimeout)
	defer cancel()
	sql := fmt.Sprintf(jobsQuery, project, c.Lineage.Region)
	since := c.now().Add(-c.Lineage.Lookback).UTC()
	q := query{sql: sql, location: strings.TrimPrefix(c.Lineage.Region, "region-"), labels: map[string]string{"bfaudit": "lineage"},
		params: []*bq.QueryParameter{timeParam("since", since), intParam("max_rows", int64(c.Lineage.MaxRows)+1)}}
	estimate, err := c.dryRunQuery(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("dry run: %w", gcp.Summarize(err))
	}
	if estimate > c.MaxBytesBilled {
		return nil, fmt.Errorf("refused: the dry run says the query would process %d bytes, above max_bytes_billed %d", estimate, c.MaxBytesBilled)
	}
	q.maxBytes = c.MaxBytesBilled
	var out []jobRow
	err = c.read(ctx, q, func([]string) {}, func(row []any) error {
		if len(out) == c.Lineage.MaxRows {
			return fmt.Errorf("more than lineage.max_rows (%d) jobs since %s; raise it or shorten lineage.lookback", c.Lineage.MaxRows, since.Format(time.RFC3339))
		}
		r, err := decodeJob(row)
		if err != nil {
			return fmt.Errorf("row %d: %w", len(out)+1, err)
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, gcp.Summarize(err)
	}
	return out, nil
}

// decodeJob reads a row in jobsQuery's column order.
func decodeJob(row []any) (jobRow, error) {
	if len(row) != 6 {
		return jobRow{}, fmt.Errorf("%d columns; want 6", len(row))
	}
	var r jobRow
	var ok bool
	if r.id, ok = row[0].(string); !ok || r.id == "" {
		return r, errors.New("job_id is not a string")
	}
	if r.end, ok = row[1].(time.Time); !ok {
		return r, fmt.Errorf("job %s: end_time is not a timestamp", r.id)
	}
	r.statement, _ = row[2].(string)
	if r.destination, ok = row[3].(string); !ok {
		return r, fmt.Errorf("job %s: destination_table is not a string", r.id)
	}
	refs, _ := row[4].([]any)
	for _, v := range refs {
		if s, ok := v.(string); ok && s != "" {
			r.referenced = append(r.referenced, s)
		}
	}
	labels, _ := row[5].([]any)
	for _, v := range labels {
		if k, val, ok := strings.Cut(fmt.Sprint(v), "="); ok && k != "" {
			if r.labels == nil {
				r.labels = map[string]string{}
			}
			r.labels[k] = val
		}
	}
	return r, nil
}
