package s3

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// estate serves two buckets of account 111111111111. scratch (in
// eu-west-1) holds BF-1234's temporary output under tmp/, a production
// job's, a single file of BF-5678, and a lifecycle rule expiring tmp/
// after 7 days. streaming (us-east-1), tagged for BF-9 and under object
// lock (COMPLIANCE, 30 days), holds BF-1234's checkpoint folder and a job's
// tied only by the bucket's tag; its lifecycle rule filters on a tag, so
// it expires nothing a listing can tell.
func estate(t *testing.T) *fakeS3 {
	f := newFake(t)
	f.bucket(t, "scratch")
	f.regions["scratch"] = "eu-west-1"
	f.put(t, "scratch", "tmp/bf_1234/part-0", 100, jan10)
	f.put(t, "scratch", "tmp/bf_1234/part-1", 200, jan12)
	f.put(t, "scratch", "tmp/bf_1234/_SUCCESS", 0, jan12)
	f.put(t, "scratch", "tmp/daily/part-0", 10, jan10)
	f.put(t, "scratch", "tmp/bf-5678.csv", 5, jan10)
	f.put(t, "scratch", "other/bf_1234_elsewhere/x", 1, jan10)
	f.set("lifecycle", "scratch", `<Rule><ID>expire-tmp</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>7</Days></Expiration></Rule>`)
	f.bucket(t, "streaming")
	f.put(t, "streaming", "checkpoints/bf_1234_replay/chk-17/_metadata", 10, jan10)
	f.put(t, "streaming", "checkpoints/bf_1234_replay/chk-17/part-0", 20, jan12)
	f.put(t, "streaming", "checkpoints/job-x/chk-1/_metadata", 7, jan10)
	f.set("tagging", "streaming", tagSet(map[string]string{"backfill_id": "bf-9", "team": "data"}))
	f.set("object-lock", "streaming", `<ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Days>30</Days></DefaultRetention></Rule>`)
	f.set("lifecycle", "streaming", `<Rule><ID>tagged</ID><Filter><Tag><Key>ttl</Key><Value>short</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`)
	return f
}

var estateBuckets = []Bucket{
	{Name: "scratch", Prefixes: []string{"tmp/"}},
	{Name: "streaming", Prefixes: []string{"checkpoints/", "savepoints/"}},
}

func collect(t *testing.T, c *Collector) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("collect: %v", err)
	}
	return sink
}

func TestCollectsFoldersOfBackfills(t *testing.T) {
	f := estate(t)
	sink := collect(t, f.collector(t, estateBuckets...))
	if len(sink.Errors) > 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	day := func(s string) time.Time { d, _ := time.Parse(time.RFC3339, s); return d }
	tests := []struct {
		uri, name, backfill, how string
		kind                     model.Kind
		objects, bytes           string
		modified, expires        time.Time
		retainUntil              string
	}{
		{"s3://s3/111111111111/eu-west-1/scratch/tmp/bf_1234/", "s3://scratch/tmp/bf_1234/", "bf_1234", "folder", model.KindTable,
			"3", "300", jan12, day("2026-01-20T00:00:00Z"), ""},
		{"s3://s3/111111111111/eu-west-1/scratch/tmp/bf-5678.csv", "s3://scratch/tmp/bf-5678.csv", "bf-5678", "name", model.KindTable,
			"1", "5", jan10, day("2026-01-18T00:00:00Z"), ""},
		{"s3://s3/111111111111/us-east-1/streaming/checkpoints/bf_1234_replay/", "s3://streaming/checkpoints/bf_1234_replay/", "bf_1234", "folder", model.KindCheckpoint,
			"2", "30", jan12, time.Time{}, "2026-02-11T14:00:00Z"},
		{"s3://s3/111111111111/us-east-1/streaming/checkpoints/job-x/", "s3://streaming/checkpoints/job-x/", "bf-9", "label", model.KindCheckpoint,
			"1", "7", jan10, time.Time{}, "2026-02-09T09:30:00Z"},
	}
	if len(sink.Artifacts) != len(tests) {
		t.Errorf("%d artifacts, want %d: %+v", len(sink.Artifacts), len(tests), sink.Artifacts)
	}
	for _, tt := range tests {
		a := sink.Artifact(tt.uri)
		if a == nil {
			t.Errorf("no artifact %s", tt.uri)
			continue
		}
		if a.Name != tt.name || !strings.EqualFold(a.BackfillID, tt.backfill) || a.Correlation != tt.how || a.Kind != tt.kind ||
			a.Attr(model.AttrObjects) != tt.objects || a.Attr(model.AttrBytes) != tt.bytes || !a.ModifiedAt.Time().Equal(tt.modified) ||
			!a.ExpiresAt.Time().Equal(tt.expires) || a.Attr(AttrRetainUntil) != tt.retainUntil || a.State != model.StateActive {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.uri, *a, tt)
		}
		locked := strings.Contains(tt.uri, "/streaming/")
		if (a.Attr(model.AttrHolds) == "true") != locked || locked && a.Attr(AttrLockMode) != "COMPLIANCE" {
			t.Errorf("%s: holds %q, lock %q", tt.uri, a.Attr(model.AttrHolds), a.Attr(AttrLockMode))
		}
		if tt.kind == model.KindCheckpoint && a.Attr(model.AttrCheckpointType) != "object" ||
			tt.kind == model.KindTable && a.Attr(model.AttrTemporary) != "true" {
			t.Errorf("%s: attributes %v", tt.uri, a.Attributes)
		}
		if a.Scope != PrefixScope("111111111111", strings.Split(tt.name, "/")[2], strings.Split(tt.name, "/")[3]+"/") {
			t.Errorf("%s: scope %q", tt.uri, a.Scope)
		}
	}
	reads := map[string]int{}
	for _, r := range sink.Reads {
		reads[r.Scope+" "+r.What] += r.Read
	}
	for key, n := range map[string]int{
		"111111111111/scratch buckets": 1, "111111111111/streaming buckets": 1,
		"111111111111/scratch/tmp%2F objects": 5, "111111111111/streaming/checkpoints%2F objects": 3, "111111111111/streaming/savepoints%2F objects": 0,
	} {
		if reads[key] != n {
			t.Errorf("read %d at %s, want %d (reads %v)", reads[key], key, n, reads)
		}
	}
}

// A bucket's region is asked of S3 in the first configured region
// (HeadBucket: a bucket elsewhere is refused there with 301, its region
// named in a header); every call after it is signed for that region.
func TestBucketRegion(t *testing.T) {
	f := estate(t)
	collect(t, f.collector(t, estateBuckets...))
	for _, want := range []string{
		"HEAD /scratch? eu-west-1", "GET /scratch?tagging= eu-west-1", "GET /scratch?lifecycle= eu-west-1", "GET /scratch?object-lock= eu-west-1",
		"HEAD /streaming? eu-west-1", "GET /streaming?tagging= us-east-1", "GET /streaming?object-lock= us-east-1",
	} {
		if !slices.Contains(f.requests, want) {
			t.Errorf("no request %q in %q", want, f.requests)
		}
	}
	for _, rq := range f.requests {
		if strings.HasPrefix(rq, "GET /streaming") && !strings.HasSuffix(rq, " us-east-1") {
			t.Errorf("%s: not signed for the bucket's region", rq)
		}
	}
	f.regions["streaming"] = "eu-west-1/../x"
	sink := collect(t, f.collector(t, estateBuckets...))
	if len(sink.Errors) != 1 || !strings.Contains(sink.Errors[0].Error, "not S3's answer (the bucket's region") {
		t.Errorf("a region that is no region's name: %+v", sink.Errors)
	}
}

// Expiry by lifecycle rules: the earliest rule that covers an object
// expires it, the folder goes with its last object, and a folder one of
// whose objects no rule covers does not expire.
func TestLifecycleExpiry(t *testing.T) {
	f := newFake(t)
	f.bucket(t, "bkt")
	f.put(t, "bkt", "tmp/bf_1/a", 10, jan10)
	f.put(t, "bkt", "tmp/bf_1/big", 5000, jan12)
	f.put(t, "bkt", "tmp/bf_2/a", 10, jan10)
	f.put(t, "bkt", "tmp/bf_3/a", 10, jan10)
	f.put(t, "bkt", "tmp/bf_4/a", 10, jan12)
	f.set("lifecycle", "bkt", `<Rule><ID>all-tmp-30d</ID><Prefix>tmp/</Prefix><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>`+
		`<Rule><ID>bf1-small-2d</ID><Filter><And><Prefix>tmp/bf_1/</Prefix><ObjectSizeLessThan>1000</ObjectSizeLessThan></And></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>`+
		`<Rule><ID>bf2-off</ID><Filter><Prefix>tmp/bf_2/</Prefix></Filter><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>`+
		`<Rule><ID>bf4-date</ID><Filter><Prefix>tmp/bf_4/</Prefix></Filter><Status>Enabled</Status><Expiration><Date>2026-01-11T00:00:00.000Z</Date></Expiration></Rule>`)
	sink := collect(t, f.collector(t, Bucket{Name: "bkt", Prefixes: []string{"tmp/"}}))
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	for path, want := range map[string]time.Time{
		"tmp/bf_1/": day("2026-02-12"), // small: Jan 13, big: only the 30 days
		"tmp/bf_2/": day("2026-02-10"), // the 1-day rule is disabled
		"tmp/bf_3/": day("2026-02-10"),
		"tmp/bf_4/": day("2026-01-13"), // written after its Date: at the next midnight
	} {
		a := sink.Artifact("s3://s3/111111111111/us-east-1/bkt/" + path)
		if a == nil || !a.ExpiresAt.Time().Equal(want) {
			t.Errorf("%s expires %v, want %s", path, a, want)
		}
	}
	f.unset("lifecycle", "bkt")
	f.set("lifecycle", "bkt", `<Rule><ID>bf1-only</ID><Filter><Prefix>tmp/bf_1/a</Prefix></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>`)
	sink = collect(t, f.collector(t, Bucket{Name: "bkt", Prefixes: []string{"tmp/"}}))
	if a := sink.Artifact("s3://s3/111111111111/us-east-1/bkt/tmp/bf_1/"); a == nil || !a.ExpiresAt.IsZero() {
		t.Errorf("a folder with an object no rule covers expires: %+v", a)
	}
}

// A bucket that fails (here: does not exist) is an error at its unit; the
// other buckets are read, and a listing over max_objects is an error at
// its prefix only, its objects read in part.
func TestBucketAndPrefixErrors(t *testing.T) {
	f := estate(t)
	for i := range 5 {
		f.put(t, "streaming", "savepoints/sp-"+string(rune('a'+i)), 1, jan10)
	}
	c := f.collector(t, append([]Bucket{{Name: "missing", Prefixes: []string{"tmp/"}}}, estateBuckets...)...)
	c.MaxObjects = 4
	sink := collect(t, c)
	errs := map[string]string{}
	for _, e := range sink.Errors {
		errs[e.Scope] = e.Error
	}
	if e := errs["111111111111/missing"]; !strings.Contains(e, "NoSuchBucket") || !strings.Contains(e, "s3: read bucket missing (account 111111111111)") {
		t.Errorf("the missing bucket's error: %q (all: %v)", e, errs)
	}
	if e := errs[PrefixScope("111111111111", "streaming", "savepoints/")]; !strings.Contains(e, "more than 4 objects (max_objects)") {
		t.Errorf("savepoints/ error: %q (all: %v)", e, errs)
	}
	if e := errs[PrefixScope("111111111111", "scratch", "tmp/")]; !strings.Contains(e, "more than 4 objects") {
		t.Errorf("tmp/ (5 objects) error: %q", e)
	}
	if len(errs) != 3 || sink.Artifact("s3://s3/111111111111/us-east-1/streaming/checkpoints/bf_1234_replay/") == nil {
		t.Errorf("errors %v; want the checkpoints/ prefix read", errs)
	}
}

// Settings are checked when the config loads, each error naming its key.
func TestBadConfig(t *testing.T) {
	ok := func() *Collector {
		c := New()
		c.Regions = []string{"eu-west-1"}
		c.Buckets = []Bucket{{Name: "bkt", Prefixes: []string{"tmp/"}}}
		c.loadOptions = staticCredentials(canarySecret, canaryToken)
		return c
	}
	if err := ok().Init(collectors.Env{}); err != nil {
		t.Fatalf("a valid config: %v", err)
	}
	two := []awsconf.Account{{ID: "111111111111"}, {ID: "222222222222"}}
	for want, edit := range map[string]func(c *Collector){
		"buckets: missing":         func(c *Collector) { c.Buckets = nil },
		"buckets[0].name":          func(c *Collector) { c.Buckets[0].Name = "s3://b" },
		"buckets[0].prefixes":      func(c *Collector) { c.Buckets[0].Prefixes = nil },
		"buckets[0].prefixes[1]":   func(c *Collector) { c.Buckets[0].Prefixes = []string{"tmp/", "tmp/x/"} },
		"buckets[0].account: miss": func(c *Collector) { c.Accounts = two },
		"buckets[0].account: \"12": func(c *Collector) { c.Buckets[0].Account = "12" },
		"buckets[0].account: 3333": func(c *Collector) { c.Accounts = two; c.Buckets[0].Account = "333333333333" },
		"max_objects":              func(c *Collector) { c.MaxObjects = 0 },
		"regions: missing":         func(c *Collector) { c.Regions = nil },
		"organization.role":        func(c *Collector) { c.Organization = &awsconf.Organization{}; c.Buckets[0].Account = "111111111111" },
		"endpoint":                 func(c *Collector) { c.Endpoint = "localhost" },
	} {
		c := ok()
		edit(c)
		if err := c.Init(collectors.Env{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Init = %v", want, err)
		}
	}
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "s3", "regions": []any{"eu-west-1"},
		"buckets": []any{map[string]any{"name": "bkt", "prefixes": []any{"tmp/"}}}})
}

func TestSampleConfigDecodes(t *testing.T) {
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c := inst.Collector.(*Collector)
	if len(c.Buckets) != 2 || c.Buckets[1].Account != "111111111111" || c.MaxObjects != 100000 || c.Timeout != 30*time.Second {
		t.Errorf("decoded %+v", c)
	}
}

// Answers S3 never gives (a web page where a listing or the bucket's tags
// should be, a truncated page with no way on) fail their unit: they never
// read as "no objects" or "no tags".
func TestNotS3sAnswer(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>Welcome to nginx!</body></html>"))
	})
	truncated := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeXML(w, `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>scratch</Name><Prefix>tmp/</Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated></ListBucketResult>`)
	})
	for _, tt := range []struct {
		name, bucket, prefix string
		h                    http.Handler
		scope, want          string
	}{
		{"a page for a listing", "scratch", "tmp/", page, PrefixScope("111111111111", "scratch", "tmp/"), "S3 ListObjectsV2: not S3's answer (no bucket named)"},
		{"a truncated page without a token", "scratch", "tmp/", truncated, PrefixScope("111111111111", "scratch", "tmp/"), "a truncated page without a continuation token"},
		{"a page for the bucket", "streaming", "", page, "111111111111/streaming", "not S3's answer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := estate(t)
			f.Break(tt.bucket, tt.prefix, tt.h)
			sink := collect(t, f.collector(t, estateBuckets...))
			if len(sink.Errors) != 1 || sink.Errors[0].Scope != tt.scope || !strings.Contains(sink.Errors[0].Error, tt.want) {
				t.Errorf("errors %+v; want one at %s saying %q", sink.Errors, tt.scope, tt.want)
			}
		})
	}
}
