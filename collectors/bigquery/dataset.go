package bigquery

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/model"
	bq "google.golang.org/api/bigquery/v2"
)

// System-specific attributes of tables.
const (
	AttrTableType    = "table_type"   // TABLE, VIEW, MATERIALIZED_VIEW, EXTERNAL, SNAPSHOT
	AttrPartitioning = "partitioning" // e.g. DAY(event_date)
	AttrDataset      = "dataset"
)

type tie struct{ id, how string }

// datasetScope is the unit of one dataset: its tables and ACL entries
// carry it, and a failure to read them is recorded there.
func datasetScope(project, dataset string) string { return model.JoinScope(project, dataset) }

// collectDataset emits the dataset's backfill tables and its backfill ACL
// entries. Tables in a dataset that is itself backfill machinery belong to
// that backfill unless they say otherwise. A failed ACL read or tables.get
// is recorded at the dataset and the rest goes on; a failed table listing
// is returned, for the caller to record at the dataset. It says at the
// dataset how many tables (and ACL entries) it read, and returns false
// when the dataset was read only in part (its ACL or table listing failed).
func (c *Collector) collectDataset(ctx context.Context, project string, entry *bq.DatasetListDatasets, m iamcond.Matcher, gets chan struct{}, sink collectors.Sink) (bool, error) {
	if entry.DatasetReference == nil {
		return true, nil
	}
	dsID := entry.DatasetReference.DatasetId
	scope := datasetScope(project, dsID)
	var dsTie tie
	if id, how, ok := c.sel.Match(DatasetURI(project, dsID), dsID, entry.Labels); ok {
		dsTie = tie{id, how}
	}
	complete := true
	if c.DatasetACLs == ACLsAll || (c.DatasetACLs == ACLsBackfill && dsTie.how != "") {
		ds, err := c.getDataset(ctx, project, dsID)
		switch {
		case isNotFound(err):
			return true, nil // deleted since it was listed
		case err != nil:
			// The tables may still be readable; record and go on.
			sink.AddError(scope, fmt.Errorf("bigquery: read ACL of dataset %s.%s: %w", project, dsID, err))
			complete = false
		default:
			sink.AddRead(scope, "ACL entries", len(ds.Access), 0)
			c.emitACL(project, dsID, ds, dsTie, m, sink)
		}
	}
	tables, err := c.listTables(ctx, project, dsID)
	if err != nil {
		if isNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("bigquery: list tables of dataset %s.%s: %w", project, dsID, err)
	}
	var wg sync.WaitGroup
	var partial atomic.Int64 // tables whose tables.get failed
	read := 0
	defer func() { sink.AddRead(scope, "tables", read, int(partial.Load())) }()
	for i, t := range tables {
		if t.TableReference == nil || t.TableReference.TableId == "" {
			// A listing entry that names no table is a malformed answer,
			// not an absent table.
			sink.AddError(scope, fmt.Errorf("bigquery: list tables of dataset %s.%s: entry %d has no tableReference", project, dsID, i))
			continue
		}
		read++
		tID := t.TableReference.TableId
		id, how, ok := c.sel.Match(TableURI(project, dsID, tID), tID, t.Labels)
		if !ok && dsTie.how != "" {
			id, how, ok = dsTie.id, dsTie.how, true
		}
		if !ok {
			continue
		}
		a := c.tableFromList(project, dsID, t, tie{id, how})
		if !a.HasKeep() {
			// A keep label on the dataset keeps its tables, unless a
			// table says otherwise.
			a.KeepFromLabels(entry.Labels)
		}
		if !c.FetchTableMetadata {
			sink.AddArtifact(a)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			gets <- struct{}{}
			defer func() { <-gets }()
			full, err := c.getTable(ctx, project, dsID, tID)
			switch {
			case isNotFound(err):
				return // dropped since it was listed
			case err != nil:
				sink.AddError(scope, fmt.Errorf("bigquery: read table %s.%s.%s: %w", project, dsID, tID, err))
				partial.Add(1)
			default:
				c.addStats(&a, full)
			}
			sink.AddArtifact(a)
		}()
	}
	wg.Wait()
	return complete, nil
}

// tableFromList builds a table artifact from what tables.list carries:
// labels, type, creation and expiration times.
func (c *Collector) tableFromList(project, dataset string, t *bq.TableListTables, tt tie) model.Artifact {
	tID := t.TableReference.TableId
	a := model.Artifact{
		Kind:        model.KindTable,
		Scope:       datasetScope(project, dataset),
		URI:         TableURI(project, dataset, tID),
		Name:        dataset + "." + tID,
		BackfillID:  tt.id,
		Correlation: tt.how,
		Labels:      model.TagsOf(copyLabels(t.Labels)),
		Owner:       t.Labels[c.OwnerLabel],
		CreatedAt:   model.At(millis(t.CreationTime)),
		ExpiresAt:   model.At(millis(t.ExpirationTime)),
		State:       model.StateActive,
	}
	a.SetAttr(AttrDataset, dataset)
	a.KeepFromLabels(t.Labels)
	if t.Type != "" {
		a.SetAttr(AttrTableType, t.Type)
	}
	if p := t.TimePartitioning; p != nil {
		a.SetAttr(AttrPartitioning, partitioning(p))
	}
	c.setExpired(&a)
	return a
}

// addStats adds what only tables.get carries.
func (c *Collector) addStats(a *model.Artifact, t *bq.Table) {
	a.SetAttr(model.AttrRows, strconv.FormatUint(t.NumRows, 10))
	a.SetAttr(model.AttrBytes, strconv.FormatInt(t.NumBytes, 10))
	a.ModifiedAt = model.At(millis(int64(t.LastModifiedTime)))
	// A keep line in the description ("bfaudit-keep-reason: ..."), for a
	// reason with spaces a label value cannot hold; labels win.
	a.KeepFromText(t.Description)
	if t.ExpirationTime != 0 {
		a.ExpiresAt = model.At(millis(t.ExpirationTime))
	}
	c.setExpired(a)
}

// setExpired marks a table past its expiration: BigQuery deletes it soon
// after, but until then it still holds data.
func (c *Collector) setExpired(a *model.Artifact) {
	if !a.ExpiresAt.IsZero() && !a.ExpiresAt.Time().After(c.now()) {
		a.State = model.StateExpired
	}
}

func partitioning(p *bq.TimePartitioning) string {
	field := p.Field
	if field == "" {
		field = "_PARTITIONTIME"
	}
	return p.Type + "(" + field + ")"
}

// millis reads the REST API's milliseconds since the epoch; 0 is unset.
func millis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func copyLabels(in map[string]string) map[string]string {
	if len(in) == 0 {
		return nil
	}
	return maps.Clone(in)
}
