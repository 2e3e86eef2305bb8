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
	var all []*bq.DatasetListDatasets
	pages := remote.Pager{What: "bigquery.datasets.list", Max: c.maxPages}
	token := ""
	for {
		page, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*bq.DatasetList, error) {
			call := c.svc.Datasets.List(project).MaxResults(listPageSize).PageToken(token).Context(ctx)
			if c.DatasetFilter != "" {
				call = call.Filter(c.DatasetFilter)
			}
			return call.Do()
		})
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(page.Datasets))
		for _, d := range page.Datasets {
			if d.DatasetReference != nil {
				ids = append(ids, d.DatasetReference.DatasetId)
			}
		}
		if err := pages.Next(page.NextPageToken, ids...); err != nil {
			return nil, err
		}
		all = append(all, page.Datasets...)
		if page.NextPageToken == "" {
			return all, nil
		}
		token = page.NextPageToken
	}
}

// listTables reads every page of tables.list, bounded like listDatasets
// and by the totalItems the service announces.
func (c *Collector) listTables(ctx context.Context, project, dataset string) ([]*bq.TableListTables, error) {
	var all []*bq.TableListTables
	pages := remote.Pager{What: "bigquery.tables.list", Max: c.maxPages}
	token := ""
	for {
		page, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*bq.TableList, error) {
			return c.svc.Tables.List(project, dataset).MaxResults(listPageSize).PageToken(token).Context(ctx).Do()
		})
		if err != nil {
			return nil, err
		}
		pages.Announced = page.TotalItems
		ids := make([]string, 0, len(page.Tables))
		for _, t := range page.Tables {
			if t.TableReference != nil {
				ids = append(ids, t.TableReference.TableId)
			}
		}
		if err := pages.Next(page.NextPageToken, ids...); err != nil {
			return nil, err
		}
		all = append(all, page.Tables...)
		if page.NextPageToken == "" {
			return all, nil
		}
		token = page.NextPageToken
	}
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
