package gcs

import (
	"sort"
	"strings"

	"testing"
	"time"

	"cloud.google.com/go/storage"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

type storageRetention = storage.ObjectRetention

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestCollectGroupsCheckpointFolders(t *testing.T) {
	f := estate(t)
	c := f.collector(t, estateBuckets...)
	sink, err := collectortest.Collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 0 {
		t.Fatalf("errors: %v", sink.Errors)
	}
	var got []string
	for _, a := range sink.Artifacts {
		got = append(got, a.URI)
	}
	sort.Strings(got)
	want := []string{
		"gcs://gcs/beam-state/beam/run-1/",
		"gcs://gcs/flink-state/checkpoints/bf_1234_replay/",
		"gcs://gcs/flink-state/checkpoints/job-x/",
		"gcs://gcs/flink-state/savepoints/bf_1234_final.tar",
	}
	if len(got) != len(want) {
		t.Fatalf("artifacts %v; want %v (the production job's folder and unlisted prefixes left out)", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("artifacts %v; want %v", got, want)
		}
	}
	by := map[string]model.Artifact{}
	for _, a := range sink.Artifacts {
		by[a.URI] = a
	}
	cp := by["gcs://gcs/flink-state/checkpoints/bf_1234_replay/"]
	if cp.Kind != model.KindCheckpoint || cp.System != "gcs" || cp.Attr(model.AttrCheckpointType) != "object" ||
		cp.Name != "gs://flink-state/checkpoints/bf_1234_replay/" || cp.BackfillID != "bf_1234" || cp.Correlation != "name" ||
		cp.Attr(model.AttrBytes) != "350" || cp.Attr(model.AttrObjects) != "3" || !cp.ModifiedAt.Time().Equal(jan12) ||
		cp.Scope != PrefixScope("flink-state", "checkpoints/") || cp.Attr(model.AttrHolds) != "" || !cp.ExpiresAt.IsZero() || !cp.State.Live() {
		t.Errorf("checkpoint folder: %+v", cp)
	}
	if m := by["gcs://gcs/flink-state/checkpoints/job-x/"]; m.BackfillID != "bf-5678" || m.Correlation != "label" || m.Attr(model.AttrObjects) != "1" {
		t.Errorf("folder tied by object metadata: %+v", m)
	}
	if sp := by["gcs://gcs/flink-state/savepoints/bf_1234_final.tar"]; sp.Attr(model.AttrHolds) != "true" || sp.Attr(model.AttrBytes) != "1000" {
		t.Errorf("held savepoint: %+v", sp)
	}
	b := by["gcs://gcs/beam-state/beam/run-1/"]
	if b.BackfillID != "bf-9" || b.Correlation != "label" || b.Attr(model.AttrHolds) != "true" || b.Attr(model.AttrObjects) != "2" ||
		!b.ExpiresAt.Time().Equal(jan12.Add(24*time.Hour)) {
		t.Errorf("folder of a labelled bucket with a locked retention policy: %+v", b)
	}
}

func TestObjectRetentionSetsExpiry(t *testing.T) {
	o := obj("b", "ck/bf_77_x/a", 1, jan10, nil)
	until := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	o.Retention = &storageRetention{Mode: "Unlocked", RetainUntil: until}
	f := newFake(t, o)
	c := f.collector(t, Bucket{Name: "b", Prefixes: []string{"ck/"}})
	sink, err := collectortest.Collect(t, c)
	if err != nil || len(sink.Artifacts) != 1 {
		t.Fatalf("%v %v %v", err, sink.Artifacts, sink.Errors)
	}
	if a := sink.Artifacts[0]; !a.ExpiresAt.Time().Equal(until) {
		t.Errorf("expires %s; want the object's retainUntil %s", a.ExpiresAt, until)
	}
}

func TestMaxObjectsIsAnErrorAtThePrefix(t *testing.T) {
	f := estate(t)
	c := f.collector(t, estateBuckets...)
	c.MaxObjects = 2
	sink, err := collectortest.Collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	if cov.Answered(PrefixScope("flink-state", "checkpoints/")) {
		t.Errorf("a prefix over max_objects counts as answered: %v", sink.Errors)
	}
	if !cov.Answered(PrefixScope("flink-state", "savepoints/")) || !cov.Answered("beam-state") {
		t.Errorf("prefixes within the bound should answer: %v", sink.Errors)
	}
	for _, a := range sink.Artifacts {
		if a.Scope == PrefixScope("flink-state", "checkpoints/") {
			t.Errorf("artifact from a truncated listing: %s", a.URI)
		}
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	// Init builds the client from Application Default Credentials; a dummy
	// authorized-user file lets it do so without a network.
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c := inst.Collector.(*Collector)
	if len(c.Buckets) != 2 || c.Buckets[0].Prefixes[1] != "savepoints/" || c.MaxObjects != 100000 || c.Timeout != 30*time.Second {
		t.Errorf("sample decoded to %+v", c)
	}
}

func TestBadConfig(t *testing.T) {
	for _, tc := range []struct {
		c    Collector
		want string
	}{
		{Collector{}, "buckets: missing"},
		{Collector{Buckets: []Bucket{{Name: "gs://x", Prefixes: []string{"a/"}}}}, "buckets[0].name"},
		{Collector{Buckets: []Bucket{{Name: "x"}}}, "buckets[0].prefixes: missing"},
		{Collector{Buckets: []Bucket{{Name: "x", Prefixes: []string{"a/", "a/b/"}}}}, "must not overlap"},
		{Collector{Buckets: []Bucket{{Name: "x", Prefixes: []string{"a/"}}}, MaxObjects: 0, Timeout: time.Second}, "max_objects"},
	} {
		err := tc.c.Init(collectors.Env{})
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v; want %q", tc.c, err, tc.want)
		}
	}
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "gcs", "name": "g", "buckets": []any{map[string]any{"name": "b", "prefixes": []any{"c/"}}}})
}

// Every unit says what it read: each bucket, each prefix its objects, the
// production job's too; a listing stopped at max_objects counts what it
// listed, only in part.
func TestReadsOfEveryUnit(t *testing.T) {
	for _, tc := range []struct {
		max                       int
		checkpoints, checkPartial int
	}{{100, 5, 0}, {2, 5, 5}} {
		f := estate(t)
		c := f.collector(t, estateBuckets...)
		c.MaxObjects = tc.max
		sink, err := collectortest.Collect(t, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			scope, what   string
			read, partial int
		}{
			{"flink-state", "buckets", 1, 0},
			{"beam-state", "buckets", 1, 0},
			{PrefixScope("flink-state", "checkpoints/"), "objects", tc.checkpoints, tc.checkPartial},
			{PrefixScope("flink-state", "savepoints/"), "objects", 1, 0},
			{PrefixScope("beam-state", "beam/"), "objects", 2, 0},
		} {
			if n, p := sink.Read(r.scope, r.what); n != r.read || p != r.partial {
				t.Errorf("max_objects %d: %s: read %d %s (%d in part), want %d (%d in part)", tc.max, r.scope, n, r.what, p, r.read, r.partial)
			}
		}
	}
}

// The error of a listing over max_objects names its prefix once.
func TestMaxObjectsErrorNamesThePrefixOnce(t *testing.T) {
	f := estate(t)
	c := f.collector(t, estateBuckets...)
	c.MaxObjects = 2
	sink, err := collectortest.Collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || strings.Count(sink.Errors[0].Error, "gs://flink-state/checkpoints/") != 1 ||
		!contains(sink.Errors[0].Error, "max_objects") {
		t.Errorf("errors %+v; want one naming gs://flink-state/checkpoints/ once, and max_objects", sink.Errors)
	}
}

// A bucket named in two entries is one unit: read once, every prefix of
// both entries listed.
func TestBucketInTwoEntriesIsOneUnit(t *testing.T) {
	f := estate(t)
	c := f.collector(t,
		Bucket{Name: "flink-state", Prefixes: []string{"checkpoints/"}},
		Bucket{Name: "beam-state", Prefixes: []string{"beam/"}},
		Bucket{Name: "flink-state", Prefixes: []string{"savepoints/"}})
	units, err := c.Units(t.Context())
	if err != nil || strings.Join(units, ",") != "flink-state,beam-state" {
		t.Fatalf("Units() = %v, %v; want each bucket once", units, err)
	}
	sink, err := collectortest.Collect(t, c)
	if err != nil || len(sink.Errors) != 0 {
		t.Fatalf("Collect: %v, errors %v", err, sink.Errors)
	}
	if n, _ := sink.Read("flink-state", "buckets"); n != 1 {
		t.Errorf("flink-state read %d times, want once", n)
	}
	if sink.Artifact("gcs://gcs/flink-state/savepoints/bf_1234_final.tar") == nil {
		t.Errorf("the second entry's prefix was not listed")
	}
}
