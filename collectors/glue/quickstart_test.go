package glue

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// TestQuickstartAnswers saves the quickstart's Data Catalog and Lake
// Formation answers (BFAUDIT_WRITE_QUICKSTART=1): BF-4400's Athena
// scratch table in both accounts, beside the sales tables it corrected,
// and its replay role's Lake Formation write on those, still granted,
// beside an analyst's read and the IAM_ALLOWED_PRINCIPALS default that
// belong to no backfill; and once the table is dropped and the grant
// revoked.
func TestQuickstartAnswers(t *testing.T) {
	collectortest.SaveQuickstartAWS(t, quickstartSource, "glue", "lakeformation")
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
		l := f.lake(account, mainRegion)
		l.grant("IAM_ALLOWED_PRINCIPALS", onDB("scratch"), []string{"ALL"})
		l.grant("arn:aws:iam::"+account+":role/analyst", onTbl("sales", "orders"), []string{"SELECT"})
		if cleaned {
			c.addDatabase(map[string]any{"Name": "scratch"})
			continue
		}
		c.addDatabase(map[string]any{"Name": "scratch"}, tmp)
		l.grant("arn:aws:iam::"+account+":role/backfill/bf-4400/bf-4400-replay", onTbl("sales", "orders"), []string{"DELETE", "INSERT", "SELECT"})
		l.grants[len(l.grants)-1]["LastUpdated"] = time.Date(2026, 10, 11, 14, 0, 0, 0, time.UTC)
	}
	return newOn(t, f.URL, func(c *Collector) { c.SaveAnswers, c.Accounts = dir, collectortest.QuickstartAccountSettings() })
}
