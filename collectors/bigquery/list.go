package bigquery

import (
	"context"

	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	bq "google.golang.org/api/bigquery/v2"
)

// listPageSize is asked of datasets.list and tables.list; the service
// answers with fewer when it likes and a nextPageToken.
const listPageSize = 1000

// listDatasets reads every page of datasets.list. A listing that fails on
// any page, or that never stops paging, is an error: the caller records
// it at the project, the listing's unit.
func (c *Collector) listDatasets(ctx context.Context, project string) ([]*bq.DatasetListDatasets, error) {
	pager := &remote.Pager{What: "bigquery.datasets.list", Max: c.maxPages}
	return gcp.Pages(ctx, c.retry, c.Timeout, pager, func(ctx context.Context, token string) (gcp.Page[*bq.DatasetListDatasets], error) {
		call := c.svc.Datasets.List(project).MaxResults(listPageSize).PageToken(token).Context(ctx)
		if c.DatasetFilter != "" {
			call = call.Filter(c.DatasetFilter)
		}
		page, err := call.Do()
		if err != nil {
			return gcp.Page[*bq.DatasetListDatasets]{}, err
		}
		return gcp.Page[*bq.DatasetListDatasets]{Items: page.Datasets, Next: page.NextPageToken}, nil
	}, func(d *bq.DatasetListDatasets) string {
		if d.DatasetReference == nil {
			return ""
		}
		return d.DatasetReference.DatasetId
	})
}

// listTables reads every page of tables.list, bounded like listDatasets
// and by the totalItems the service announces.
func (c *Collector) listTables(ctx context.Context, project, dataset string) ([]*bq.TableListTables, error) {
	pager := &remote.Pager{What: "bigquery.tables.list", Max: c.maxPages}
	return gcp.Pages(ctx, c.retry, c.Timeout, pager, func(ctx context.Context, token string) (gcp.Page[*bq.TableListTables], error) {
		page, err := c.svc.Tables.List(project, dataset).MaxResults(listPageSize).PageToken(token).Context(ctx).Do()
		if err != nil {
			return gcp.Page[*bq.TableListTables]{}, err
		}
		return gcp.Page[*bq.TableListTables]{Items: page.Tables, Next: page.NextPageToken, Announced: page.TotalItems}, nil
	}, func(t *bq.TableListTables) string {
		if t.TableReference == nil {
			return ""
		}
		return t.TableReference.TableId
	})
}

// getDataset reads a dataset with its ACL; access policy version 3 is the
// one that returns conditional entries with their conditions.
func (c *Collector) getDataset(ctx context.Context, project, dataset string) (*bq.Dataset, error) {
	return gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*bq.Dataset, error) {
		return c.svc.Datasets.Get(project, dataset).AccessPolicyVersion(3).Context(ctx).Do()
	})
}

// getTable reads the storage statistics tables.list does not carry.
func (c *Collector) getTable(ctx context.Context, project, dataset, table string) (*bq.Table, error) {
	return gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*bq.Table, error) {
		return c.svc.Tables.Get(project, dataset, table).View("STORAGE_STATS").Context(ctx).Do()
	})
}

func isNotFound(err error) bool { return gcp.IsNotFound(err) }
