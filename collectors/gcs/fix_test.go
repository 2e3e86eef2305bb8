package gcs

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/option"
	storage "google.golang.org/api/storage/v1"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/fixtest"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// gcsFixture serves fake-gcs-server in process: bf_1234's checkpoint
// folder of three objects next to a production job's folder. It returns
// the server, a collector for it (source "st") and the fix system.
func gcsFixture(t *testing.T) (*fakestorage.Server, *Collector, map[string]remedy.Actor) {
	return gcsFixtureDenying(t, "")
}

// gcsFixtureDenying is gcsFixture whose server refuses (403, as for a held
// object) to delete any object whose name ends with deny.
func gcsFixtureDenying(t *testing.T, deny string) (*fakestorage.Server, *Collector, map[string]remedy.Actor) {
	t.Helper()
	at := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	o := func(name string) fakestorage.Object {
		return fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "flink-state", Name: name, Size: 3, Created: at, Updated: at}, Content: []byte("abc")}
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true, InitialObjects: []fakestorage.Object{
		o("checkpoints/bf_1234_replay/chk-1/_metadata"), o("checkpoints/bf_1234_replay/chk-1/part-0"), o("checkpoints/bf_1234_replay/shared/s"),
		o("checkpoints/prod-job/chk-9/_metadata"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.HTTPHandler()
	hs := serveChecked(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if deny != "" && r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, url.PathEscape(deny)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"error":{"code":403,"message":"Object is under active Temporary hold and cannot be deleted.","errors":[{"reason":"forbidden"}]}}`))
			return
		}
		if r.Method == http.MethodDelete {
			// fake-gcs-server answers a delete with a body; Cloud Storage's
			// description (and the service) with none.
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code/100 == 2 {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Stop)
	client, err := NewClient(context.Background(), hs.URL, storage.DevstorageReadWriteScope, option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	c := &Collector{Buckets: []Bucket{{Name: "flink-state", Prefixes: []string{"checkpoints/"}}},
		Endpoint: hs.URL, Timeout: 5 * time.Second, MaxObjects: 100, Client: client,
		clientOptions: []option.ClientOption{option.WithoutAuthentication()}}
	if err := c.Init(collectors.Env{Source: "st", Selector: correlate.MustSelector()}); err != nil {
		t.Fatal(err)
	}
	sys, err := newGCS(c)
	if err != nil {
		t.Fatal(err)
	}
	return srv, c, map[string]remedy.Actor{"st": sys}
}

// collectGCS collects the fake into an estate around BF-1234.
func collectGCS(t *testing.T, c *Collector) *model.Estate {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil || len(sink.Errors) > 0 {
		t.Fatalf("collect: %v %v", err, sink.Errors)
	}
	est := fixtest.Estate(true)
	// The record holds the checkpoint's range (BF020): the deletion may run.
	est.Records[0].Checkpoint = &model.CheckpointRecord{FinalRange: "chk-17", ReplayID: "bf_1234_replay"}
	est.Artifacts = nil
	for _, a := range sink.Artifacts {
		a.Source = "st"
		a.BackfillID = "BF-1234"
		est.Artifacts = append(est.Artifacts, a)
	}
	est.Coverage = []model.Coverage{{Source: "plans", Status: model.CoverageOK}, {Source: "st", Status: model.CoverageOK}}
	return est
}

// delete_objects (allowed) deletes every object of the folder, the
// production job's stays, and a collection afterwards finds no folder.
func TestApplyGCS(t *testing.T) {
	srv, c, sys := gcsFixture(t)
	est := collectGCS(t, c)
	if len(est.Artifacts) != 1 || est.Artifacts[0].Attr(model.AttrObjects) != "3" {
		t.Fatalf("collected %+v", est.Artifacts)
	}
	store := fixtest.OpenStore(t)
	res := fixtest.Apply(t, fixtest.Inputs(t, est), "BF-1234", sys, store, remedy.DeleteObjects)
	if got := fixtest.StatusOf(res, remedy.DeleteObjects); got != fix.StatusApplied {
		t.Fatalf("delete_objects: %s %+v", got, res)
	}
	objs, err := srv.Backend().ListObjects("flink-state", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].Name != "checkpoints/prod-job/chk-9/_metadata" {
		t.Errorf("objects left: %+v; want only the production job's", objs)
	}
	if again := collectGCS(t, c); len(again.Artifacts) != 0 {
		t.Errorf("a collection after the fix still finds %+v", again.Artifacts)
	}
}

// A folder written to since the audit (one more object) is left alone.
func TestApplyGCSFolderChangedSinceAudit(t *testing.T) {
	srv, c, sys := gcsFixture(t)
	est := collectGCS(t, c)
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "flink-state",
		Name: "checkpoints/bf_1234_replay/chk-2/_metadata", Updated: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}, Content: bytes.Repeat([]byte("y"), 4)})
	res := fixtest.Apply(t, fixtest.Inputs(t, est), "BF-1234", sys, fixtest.OpenStore(t), remedy.DeleteObjects)
	if got := fixtest.StatusOf(res, remedy.DeleteObjects); got != fix.StatusSkipped {
		t.Fatalf("delete_objects on a changed folder: %s %+v", got, res)
	}
	objs, _ := srv.Backend().ListObjects("flink-state", "checkpoints/bf_1234_replay/", false)
	if len(objs) != 4 {
		t.Errorf("%d objects in the folder; want all 4 left alone", len(objs))
	}
}

// A held object stops the deletes: the action fails saying how many
// objects went before it, and the rest stay.
func TestApplyGCSStopsAtAHeldObject(t *testing.T) {
	srv, c, sys := gcsFixtureDenying(t, "part-0")
	est := collectGCS(t, c)
	res := fixtest.Apply(t, fixtest.Inputs(t, est), "BF-1234", sys, fixtest.OpenStore(t), remedy.DeleteObjects)
	var r *fix.Result
	for i := range res {
		if res[i].Item.Action != nil && res[i].Item.Action.Name == remedy.DeleteObjects {
			r = &res[i]
		}
	}
	if r == nil || r.Status != fix.StatusFailed || !strings.Contains(r.Reason, "deleted 1 of 3 objects") || !strings.Contains(r.Reason, "HTTP 403") {
		t.Fatalf("delete_objects with a held object: %+v", r)
	}
	objs, _ := srv.Backend().ListObjects("flink-state", "checkpoints/bf_1234_replay/", false)
	if len(objs) != 2 {
		t.Errorf("%d objects left in the folder; want the held one and the one after it", len(objs))
	}
}
