package gcs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/option"
)

var (
	jan10 = time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	jan12 = time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC)
)

// fakeGCS is fake-gcs-server (in process, no listener of its own) behind
// an httptest server that adds what the fake does not keep: bucket labels
// and retention policies, object holds; and fails the units a test breaks.
type fakeGCS struct {
	mu     sync.Mutex
	srv    *fakestorage.Server
	http   *httptest.Server
	bucket map[string]map[string]any // fields merged into a bucket's answer
	holds  map[string]bool           // "bucket/object" with a temporary hold
	fail   map[string]int            // "bucket" or "bucket/prefix" -> status
}

func obj(bucket, name string, size int, updated time.Time, meta map[string]string) fakestorage.Object {
	return fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: name, Size: int64(size),
		Created: updated, Updated: updated, Metadata: meta}, Content: bytes.Repeat([]byte("x"), size)}
}

func newFake(t *testing.T, objs ...fakestorage.Object) *fakeGCS {
	t.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{InitialObjects: objs, NoListener: true})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeGCS{srv: srv, bucket: map[string]map[string]any{}, holds: map[string]bool{}, fail: map[string]int{}}
	f.http = serveChecked(t, f)
	t.Cleanup(srv.Stop)
	return f
}

// Fail makes every call about a bucket (prefix "") or the listing of one
// prefix answer status.
func (f *fakeGCS) Fail(bucket, prefix string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[bucket+"/"+prefix] = status
}

func (f *fakeGCS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/storage/v1")
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	bucket := ""
	if len(parts) >= 2 && parts[0] == "b" {
		bucket = parts[1]
	}
	for _, key := range []string{bucket + "/", bucket + "/" + r.URL.Query().Get("prefix")} {
		if code, ok := f.fail[key]; ok && bucket != "" && (key == bucket+"/" || len(parts) == 3) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"error":{"code":%d,"message":"broken by the test","errors":[{"reason":"backendError"}]}}`, code)
			return
		}
	}
	rec := httptest.NewRecorder()
	f.srv.HTTPHandler().ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if r.Method == http.MethodGet && rec.Code == http.StatusOK && bucket != "" {
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			switch {
			case len(parts) == 2:
				for k, v := range f.bucket[bucket] {
					m[k] = v
				}
			case len(parts) == 3 && parts[2] == "o":
				items, _ := m["items"].([]any)
				for _, it := range items {
					if o, ok := it.(map[string]any); ok && f.holds[bucket+"/"+fmt.Sprint(o["name"])] {
						o["temporaryHold"] = true
					}
				}
			}
			body, _ = json.Marshal(m)
		}
	}
	for k, v := range rec.Header() {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(rec.Code)
	w.Write(body)
}

// collector is an Init-ed collector for the fake's buckets.
func (f *fakeGCS) collector(t *testing.T, buckets ...Bucket) *Collector {
	t.Helper()
	c := &Collector{Buckets: buckets, Endpoint: f.http.URL, Timeout: 5 * time.Second, MaxObjects: 1000,
		retry:         remote.RetryPolicy{Attempts: 1},
		clientOptions: []option.ClientOption{option.WithoutAuthentication()}}
	if err := c.Init(collectors.Env{Source: "gcs", Selector: correlate.MustSelector()}); err != nil {
		t.Fatal(err)
	}
	return c
}

// estate serves bucket flink-state (checkpoints of bf_1234, a production
// job's, a folder tied by object metadata, a held savepoint of bf_1234)
// and bucket beam-state, labelled for BF-9 with a locked retention policy.
func estate(t *testing.T) *fakeGCS {
	f := newFake(t,
		obj("flink-state", "checkpoints/bf_1234_replay/chk-17/_metadata", 100, jan10, nil),
		obj("flink-state", "checkpoints/bf_1234_replay/chk-17/part-0", 200, jan12, nil),
		obj("flink-state", "checkpoints/bf_1234_replay/shared/x", 50, jan10, nil),
		obj("flink-state", "checkpoints/prod-job/chk-3/_metadata", 10, jan10, nil),
		obj("flink-state", "checkpoints/job-x/chk-1/_metadata", 7, jan10, map[string]string{"backfill_id": "bf-5678"}),
		obj("flink-state", "savepoints/bf_1234_final.tar", 1000, jan10, nil),
		obj("flink-state", "other/bf_1234_elsewhere/x", 1, jan10, nil),
		obj("beam-state", "beam/run-1/a", 5, jan10, nil),
		obj("beam-state", "beam/run-1/b", 6, jan12, nil),
	)
	f.holds["flink-state/savepoints/bf_1234_final.tar"] = true
	f.bucket["beam-state"] = map[string]any{
		"labels":          map[string]any{"backfill_id": "bf-9"},
		"retentionPolicy": map[string]any{"retentionPeriod": "86400", "isLocked": true, "effectiveTime": "2025-01-01T00:00:00Z"},
	}
	return f
}

var estateBuckets = []Bucket{
	{Name: "flink-state", Prefixes: []string{"checkpoints/", "savepoints/"}},
	{Name: "beam-state", Prefixes: []string{"beam/"}},
}
