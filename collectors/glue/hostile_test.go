package glue

import (
	"net/http"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// hostileOn is a collector whose session token is the canary: it is sent
// with every request (the secret key never is), so a server echoing the
// request's headers would put it in an error.
func hostileOn(t *testing.T, url string) collectors.Collector {
	return newOn(t, url, withAccounts, func(c *Collector) { c.LoadOptions = testLoadOptions(hostile.Canary) })
}

// Each hostile server in the place of all of AWS: the source fails within
// its bounds, saying why as an AWS call says it (collectortest.SaysAWS),
// and the canary is in no text.
func TestHostileWholeServer(t *testing.T) {
	collectortest.HostileWholeServerSaying(t, collectortest.SaysAWS, hostileOn)
}

// Each hostile server behind one account in one region: that unit fails
// alone, the other account is read.
func TestHostileUnit(t *testing.T) {
	var f *fakeGlue
	collectortest.HostileUnitSaying(t, collectortest.SaysAWS, baseAccount+"/"+mainRegion, hostileOn,
		func(t *testing.T, h http.Handler) string {
			f = estate(t)
			f.Break(baseAccount, mainRegion, h)
			return f.URL
		},
		func(t *testing.T, sink *collectors.TestSink) {
			if sink.Artifact("glue://aws-catalog/222222222222/eu-west-1/finance/bf_1234_refunds") == nil {
				t.Errorf("the other account was not read: %v", uris(sink, model.KindTable))
			}
		})
}

// Each hostile server behind one account's Lake Formation in one region:
// its scope fails alone, the account's tables are read.
func TestHostileLakeFormation(t *testing.T) {
	collectortest.HostileUnitSaying(t, collectortest.SaysAWS, lfScope, hostileOn,
		func(t *testing.T, h http.Handler) string {
			f := estate(t)
			delete(f.catalog(baseAccount, mainRegion).failing, "broken")
			f.BreakService(baseAccount, mainRegion, "lakeformation", h)
			return f.URL
		},
		func(t *testing.T, sink *collectors.TestSink) {
			if sink.Artifact("glue://aws-catalog/111111111111/eu-west-1/analytics/refunds_bf_1234_tmp") == nil {
				t.Errorf("the account's tables were not read: %v", uris(sink, model.KindTable))
			}
		})
}
