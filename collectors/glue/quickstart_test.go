package glue

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// TestQuickstartAnswers saves the quickstart's Data Catalog answers
// (BFAUDIT_WRITE_QUICKSTART=1): BF-4400's Athena scratch table in both
// accounts, beside the sales tables it corrected; and once it is dropped.
func TestQuickstartAnswers(t *testing.T) {
	collectortest.SaveQuickstartAWS(t, quickstartSource, "glue")
}

func quickstartSource(t *testing.T, dir string, cleaned bool) collectors.Collector {
	f := newFakeGlue(t)
	for i, account := range collectortest.QuickstartAccounts {
		c := f.catalog(account, mainRegion)
		c.addDatabase(map[string]any{"Name": "sales", "LocationUri": "s3://shop-lake/sales/"},
			table("orders", "s3://shop-lake/sales/orders/", map[string]string{"classification": "parquet"}))
		tmp := table("orders_bf_4400_tmp", "s3://shop-athena-results/tmp/bf-4400/orders/", map[string]string{
			"EXTERNAL": "TRUE", "classification": "parquet", "numRows": []string{"2184410", "301227"}[i], "totalSize": []string{"734003200", "99614720"}[i]})
		tmp["CreateTime"], tmp["UpdateTime"] = time.Date(2026, 10, 12, 6, 5, 0, 0, time.UTC), time.Date(2026, 10, 15, 22, 40, 0, 0, time.UTC)
		tmp["CreatedBy"] = "arn:aws:sts::" + account + ":assumed-role/bf-4400-replay/replay"
		if cleaned {
			c.addDatabase(map[string]any{"Name": "scratch"})
			continue
		}
		c.addDatabase(map[string]any{"Name": "scratch"}, tmp)
	}
	return newOn(t, f.URL, func(c *Collector) { c.SaveAnswers, c.Accounts = dir, collectortest.QuickstartAccountSettings() })
}
