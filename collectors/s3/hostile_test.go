package s3

import (
	"net/http"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// hostileOn is a collector of buckets at url, signing with the hostile
// suite's canary as its secret key and session token (the token travels
// in a header a header-echoing server sends back). Its calls' deadline
// covers reading their answers: it is the suite's, long enough to read
// 16 MiB.
func hostileOn(buckets ...Bucket) func(t *testing.T, url string) collectors.Collector {
	return func(t *testing.T, url string) collectors.Collector {
		c := newOn(t, url, awsconf.Settings{Accounts: []awsconf.Account{{ID: "111111111111"}},
			Timeout: time.Duration(collectortest.HostileCallTimeout)}, buckets...)
		c.loadOptions = staticCredentials(hostile.Canary, hostile.Canary+"-token")
		if err := c.Init(c.env); err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// TestHostileServers puts each hostile server in the place of S3 (for one
// bucket: the source fails when its only unit does), then behind one
// bucket while the other still answers: each ends in an error at the
// right unit, within the deadline, with no credential in any text.
func TestHostileServers(t *testing.T) {
	t.Run("whole server", func(t *testing.T) {
		t.Parallel()
		collectortest.HostileWholeServer(t, hostileOn(estateBuckets[1]))
	})
	unit := "111111111111/streaming"
	serve := func(t *testing.T, h http.Handler) string {
		f := estate(t)
		f.Break("streaming", "", h)
		// In front of the fake, so that a handler still dripping into an
		// answer to HEAD (whose body nobody reads) is let go at the end.
		return hostile.Server(t, f).URL
	}
	check := func(t *testing.T, sink *collectors.TestSink) {
		if sink.Artifact("s3://s3/111111111111/eu-west-1/scratch/tmp/bf_1234/") == nil {
			t.Errorf("the healthy bucket was not collected: %+v", sink.Errors)
		}
	}
	t.Run("one bucket", func(t *testing.T) {
		t.Parallel()
		collectortest.HostileUnit(t, unit, hostileOn(estateBuckets...), serve, check)
	})
}
