package s3

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// TestQuickstartAnswers saves the quickstart's S3 answers
// (BFAUDIT_WRITE_QUICKSTART=1): BF-4400's tmp/ folder of deduplicated
// orders in each account's lake bucket, beside the day's exports; and once it is removed.
func TestQuickstartAnswers(t *testing.T) { collectortest.SaveQuickstartAWS(t, quickstartSource, "s3") }

func quickstartSource(t *testing.T, dir string, cleaned bool) collectors.Collector {
	f := newFake(t)
	oct14, oct15 := time.Date(2026, 10, 14, 3, 10, 0, 0, time.UTC), time.Date(2026, 10, 15, 22, 35, 0, 0, time.UTC)
	var buckets []Bucket
	for i, account := range collectortest.QuickstartAccounts {
		b := []string{"shop-lake-prod", "shop-lake-eu"}[i]
		f.bucket(t, b)
		f.regions[b] = "eu-west-1"
		if !cleaned {
			f.put(t, b, "tmp/bf-4400/orders/dt=2026-09-01/part-0.parquet", 48_211_004, oct14)
			f.put(t, b, "tmp/bf-4400/orders/dt=2026-09-02/part-0.parquet", 47_930_112, oct14)
			f.put(t, b, "tmp/bf-4400/_SUCCESS", 0, oct15)
		}
		f.put(t, b, "tmp/exports-2026-11-29/orders.csv", 1_204_332, time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC))
		buckets = append(buckets, Bucket{Name: b, Prefixes: []string{"tmp/"}, Account: account})
	}
	return newOn(t, f.http.URL, awsconf.Settings{Accounts: collectortest.QuickstartAccountSettings(), SaveAnswers: dir}, buckets...)
}
