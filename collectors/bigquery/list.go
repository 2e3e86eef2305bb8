package bigquery

import (
	"context"
	"errors"
	"net/http"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/gcp"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"
)

// listPageSize is asked of datasets.list and tables.list; the service
// answers with fewer when it likes and a nextPageToken.
const listPageSize = 1000

func (c *Collector) listDatasets(ctx context.Context, project string) ([]*bq.DatasetListDatasets, error) {
	var all []*bq.DatasetListDatasets
	token := ""
	for {
		var page *bq.DatasetList
		err := collectors.Retry(ctx, c.retry, func() error {
			call := c.svc.Datasets.List(project).MaxResults(listPageSize).PageToken(token).Context(ctx)
			if c.DatasetFilter != "" {
				call = call.Filter(c.DatasetFilter)
			}
			var err error
			page, err = call.Do()
			return retryable(err)
		})
		if err != nil {
			return nil, err
		}
		all = append(all, page.Datasets...)
		if page.NextPageToken == "" {
			return all, nil
		}
		token = page.NextPageToken
	}
}

func (c *Collector) listTables(ctx context.Context, project, dataset string) ([]*bq.TableListTables, error) {
	var all []*bq.TableListTables
	token := ""
	for {
		var page *bq.TableList
		err := collectors.Retry(ctx, c.retry, func() error {
			var err error
			page, err = c.svc.Tables.List(project, dataset).MaxResults(listPageSize).PageToken(token).Context(ctx).Do()
			return retryable(err)
		})
		if err != nil {
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
	var ds *bq.Dataset
	err := collectors.Retry(ctx, c.retry, func() error {
		var err error
		ds, err = c.svc.Datasets.Get(project, dataset).AccessPolicyVersion(3).Context(ctx).Do()
		return retryable(err)
	})
	return ds, err
}

// getTable reads the storage statistics tables.list does not carry.
func (c *Collector) getTable(ctx context.Context, project, dataset, table string) (*bq.Table, error) {
	var t *bq.Table
	err := collectors.Retry(ctx, c.retry, func() error {
		var err error
		t, err = c.svc.Tables.Get(project, dataset, table).View("STORAGE_STATS").Context(ctx).Do()
		return retryable(err)
	})
	return t, err
}

// retryable marks errors worth another try (429, 5xx, network).
func retryable(err error) error { return gcp.Retryable(err) }

func isNotFound(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusNotFound
}
