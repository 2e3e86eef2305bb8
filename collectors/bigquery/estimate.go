package bigquery

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/model"
	bq "google.golang.org/api/bigquery/v2"
)

var _ collectors.Estimator = (*Collector)(nil)

// maxReplayDryRuns bounds the dry runs of one plan's replay query: a
// range of more days is sampled evenly and the sample scaled up.
const maxReplayDryRuns = 31

// Estimate says what a plan will rewrite and cost, reading only: each
// target in the source's projects (tables.get, then the partitions in the
// plan's range from INFORMATION_SCHEMA.PARTITIONS, a metadata query
// capped at max_bytes_billed), and dry runs of the plan's validation_query
// and replay_query (one per day of the range, @start and @end set). Each
// refusal is evidence on its line; an error return means BigQuery could
// not be asked.
func (c *Collector) Estimate(ctx context.Context, b model.Backfill) (*model.Estimate, error) {
	e := &model.Estimate{PricePerTiB: c.PricePerTiB, Rewrites: []model.TableSpan{}, Queries: []model.QueryCost{}}
	ctx, cancel := context.WithTimeout(ctx, c.QueryTimeout)
	defer cancel()
	for _, t := range b.Targets {
		ref, ok := c.heldTable(t)
		if !ok {
			continue
		}
		span, err := c.span(ctx, ref, b.Range)
		if err != nil {
			return nil, fmt.Errorf("bigquery: partitions of %s: %w", ref, err)
		}
		e.Rewrites = append(e.Rewrites, span)
	}
	mine := b.ValidationSource == "" || b.ValidationSource == c.source
	if b.ValidationQuery != "" && mine {
		q := model.QueryCost{Query: "validation_query"}
		bytes, err := c.dryRun(ctx, b.ValidationQuery)
		if err := c.dryRunOutcome(&q, bytes, err); err != nil {
			return nil, fmt.Errorf("bigquery: dry run of %s's validation_query: %w", b.ID, err)
		}
		e.Queries = append(e.Queries, q)
	}
	if b.ReplayQuery != "" && mine {
		q, err := c.replayCost(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("bigquery: dry run of %s's replay_query: %w", b.ID, err)
		}
		e.Queries = append(e.Queries, q)
	}
	if len(e.Rewrites) == 0 && len(e.Queries) == 0 {
		return nil, nil
	}
	return e, nil
}

// dryRunOutcome records a dry run on q: the bytes, or the query's own
// refusal as evidence; any other error is returned.
func (c *Collector) dryRunOutcome(q *model.QueryCost, bytes int64, err error) error {
	switch {
	case err == nil:
		q.Bytes += bytes
	case queryFault(err):
		q.Error = gcp.Summarize(err).Error()
	default:
		return gcp.Summarize(err)
	}
	return nil
}

// replayCost dry-runs the replay query once per day of the plan's range
// (at most maxReplayDryRuns days, evenly spaced, the total scaled up).
func (c *Collector) replayCost(ctx context.Context, b model.Backfill) (model.QueryCost, error) {
	q := model.QueryCost{Query: "replay_query"}
	if b.Range.IsZero() {
		q.Error = "the plan has no range: the replay query's intervals are not known"
		return q, nil
	}
	const day = 24 * time.Hour
	days := int((b.Range.End.Sub(b.Range.Start) + day - 1) / day) // a part of a day is an interval
	q.Intervals = max(days, 1)
	asked := min(q.Intervals, maxReplayDryRuns)
	for i := range asked {
		start := b.Range.Start.Add(time.Duration(i*q.Intervals/asked) * day)
		end := start.Add(day)
		if end.After(b.Range.End) {
			end = b.Range.End
		}
		bytes, err := c.dryRunQuery(ctx, query{sql: b.ReplayQuery, location: c.Location,
			params: []*bq.QueryParameter{timeParam("start", start), timeParam("end", end)}})
		if err := c.dryRunOutcome(&q, bytes, err); err != nil || q.Error != "" {
			return q, err
		}
	}
	if asked < q.Intervals {
		q.Sampled = asked
		q.Bytes = q.Bytes * int64(q.Intervals) / int64(asked)
	}
	return q, nil
}

// tableRef is a table by project, dataset and name.
type tableRef struct{ project, dataset, table string }

func (r tableRef) String() string { return r.project + "." + r.dataset + "." + r.table }

// heldTable reads a plan target as a table of one of the source's
// projects, its dataset and table names in the plan's case (BigQuery's
// are case-sensitive; project ids are lower case).
func (c *Collector) heldTable(target string) (tableRef, bool) {
	parts := strings.Split(model.TableName(target), ".")
	if len(parts) != 3 {
		return tableRef{}, false
	}
	project := strings.ToLower(parts[0])
	if !slices.Contains(c.Projects, project) {
		return tableRef{}, false
	}
	return tableRef{project, parts[1], parts[2]}, true
}

// span reads one target: a table not found or not readable is evidence
// on its line; a partitioned table's partitions within r are counted.
func (c *Collector) span(ctx context.Context, ref tableRef, r model.Interval) (model.TableSpan, error) {
	s := model.TableSpan{Table: ref.String()}
	t, err := c.getTable(ctx, ref.project, ref.dataset, ref.table)
	if err == nil && t.TimePartitioning != nil {
		s.Partitioning = t.TimePartitioning.Type
		var parts []partitionInfo
		if parts, err = c.partitions(ctx, ref); err == nil {
			for _, p := range parts {
				if start, ok := partitionStart(p.ID); ok && inRange(start, s.Partitioning, r) {
					s.Partitions++
					s.Rows += p.Rows
					s.Bytes += p.Bytes
				}
			}
		}
	} else if err == nil {
		s.Rows, s.Bytes = int64(t.NumRows), t.NumBytes
	}
	switch {
	case err == nil:
		return s, nil
	case queryFault(err) || gcp.Code(err) == http.StatusForbidden:
		return model.TableSpan{Table: s.Table, Error: err.Error()}, nil
	}
	return s, err
}

// partitionInfo is one row of INFORMATION_SCHEMA.PARTITIONS.
type partitionInfo struct {
	ID          string
	Rows, Bytes int64
}

// partitions reads a table's partitions from its dataset's metadata: a
// query capped at max_bytes_billed.
func (c *Collector) partitions(ctx context.Context, ref tableRef) ([]partitionInfo, error) {
	q := query{sql: "SELECT partition_id, total_rows, total_logical_bytes FROM `" + ref.project + "." + ref.dataset +
		".INFORMATION_SCHEMA.PARTITIONS` WHERE table_name = @table", params: []*bq.QueryParameter{stringParam("table", ref.table)},
		location: c.Location, labels: map[string]string{"bfaudit": "plan-preview"}, maxBytes: c.MaxBytesBilled}
	var rows []partitionInfo
	err := c.read(ctx, q, func([]string) {}, func(row []any) error {
		if len(row) != 3 {
			return fmt.Errorf("%d columns; want 3", len(row))
		}
		p := partitionInfo{}
		p.ID, _ = row[0].(string)
		var err error
		if p.Rows, err = toInt(row[1]); err == nil {
			p.Bytes, err = toInt(row[2])
		}
		rows = append(rows, p)
		return err
	})
	return rows, err
}

// partitionStart reads a time partition's id (2026070100 for an hour,
// 20260701, 202607, 2026); __NULL__ and __UNPARTITIONED__ have none.
func partitionStart(id string) (time.Time, bool) {
	layout := map[int]string{10: "2006010215", 8: "20060102", 6: "200601", 4: "2006"}[len(id)]
	if layout == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(layout, id)
	return t, err == nil
}

// inRange reports whether the partition starting at start (of the given
// type) meets the half-open range r; an unknown range holds everything.
func inRange(start time.Time, typ string, r model.Interval) bool {
	if r.IsZero() {
		return true
	}
	end := map[string]time.Time{"HOUR": start.Add(time.Hour), "DAY": start.AddDate(0, 0, 1),
		"MONTH": start.AddDate(0, 1, 0), "YEAR": start.AddDate(1, 0, 0)}[typ]
	if end.IsZero() {
		end = start.AddDate(0, 0, 1)
	}
	return start.Before(r.End) && r.Start.Before(end)
}
