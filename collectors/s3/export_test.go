package s3

import (
	"net/http"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/awsconf"
)

// FaultFake lets faultmatrix_test.go (package s3_test) break one unit of
// the fake between two collections.
type FaultFake struct{ f *fakeS3 }

// RefusedRole is the role the fixture's account 222222222222 is read
// through.
const RefusedRole = "arn:aws:iam::222222222222:role/bfaudit-read"

// NewFaultFixture serves two accounts, each read through role
// bfaudit-read: bucket proj-scratch of 111111111111 holds BF-7001's
// temporary output under tmp/ and its checkpoint folder under
// checkpoints/ (no lifecycle rule: BF005, BF020, BF021) next to a
// production job's; bucket other-scratch of 222222222222 holds more of
// BF-7001's temporary output, so that failing one bucket or one account
// is not failing the whole source. The collector is configured and
// Init-ed.
func NewFaultFixture(t *testing.T) (*Collector, *FaultFake) {
	f := newFake(t)
	f.bucket(t, "proj-scratch")
	f.put(t, "proj-scratch", "tmp/bf_7001/part-0", 10, jan10)
	f.put(t, "proj-scratch", "tmp/daily/part-0", 10, jan10)
	f.put(t, "proj-scratch", "checkpoints/bf_7001_replay/chk-1/_metadata", 10, jan12)
	f.bucket(t, "other-scratch")
	f.put(t, "other-scratch", "tmp/bf_7001_more/part-0", 10, jan12)
	c := newOn(t, f.http.URL, awsconf.Settings{Accounts: []awsconf.Account{
		{ID: "111111111111", Role: "bfaudit-read"}, {ID: "222222222222", Role: "bfaudit-read"}}},
		Bucket{Name: "proj-scratch", Prefixes: []string{"tmp/", "checkpoints/"}, Account: "111111111111"},
		Bucket{Name: "other-scratch", Prefixes: []string{"tmp/"}, Account: "222222222222"})
	c.Timeout = time.Second // a stalled bucket fails in one
	return c, &FaultFake{f: f}
}

// Fail makes every call about bucket (prefix "") or the listing of its
// prefix answer status.
func (ff *FaultFake) Fail(bucket, prefix string, status int) { ff.f.Fail(bucket, prefix, status) }

// Stall makes every call about bucket hang until the caller gives up.
func (ff *FaultFake) Stall(bucket string) {
	ff.f.Break(bucket, "", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
}

// Garbage makes every call about bucket answer a web page, as a proxy or
// a wrong address would: not an answer S3 gives.
func (ff *FaultFake) Garbage(bucket string) {
	ff.f.Break(bucket, "", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>Welcome to nginx!</body></html>"))
	}))
}

// Down stops the server: nothing answers at its address.
func (ff *FaultFake) Down() { ff.f.http.Close() }

// Refuse makes STS refuse to let the role be assumed.
func (ff *FaultFake) Refuse(role string) { ff.f.Refuse(role) }
