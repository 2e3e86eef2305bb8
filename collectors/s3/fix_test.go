package s3

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// fixFixture serves bucket scratch of account 111111111111 (read through
// role bfaudit-read): BF-1234's temporary output (three objects) next to
// a production job's, and its checkpoint folder. It returns the fake and
// the collector (source "st", the fix's clock).
func fixFixture(t *testing.T) (*fakeS3, *Collector) {
	t.Helper()
	f := newFake(t)
	f.bucket(t, "scratch")
	f.regions["scratch"] = "eu-west-1"
	for _, k := range []string{"tmp/bf_1234/part-0", "tmp/bf_1234/part-1", "tmp/bf_1234/_SUCCESS", "tmp/daily/part-0", "checkpoints/bf_1234_replay/chk-1/_metadata"} {
		f.put(t, "scratch", k, 3, jan10)
	}
	return f, f.fixCollector(t)
}

// fixCollector is a collector of the fake's bucket scratch, named st,
// reading account 111111111111 through its role, at fixtest's clock.
func (f *fakeS3) fixCollector(t *testing.T) *Collector {
	c := newOn(t, f.http.URL, awsconf.Settings{Accounts: []awsconf.Account{{ID: "111111111111", Role: "bfaudit-read"}}},
		Bucket{Name: "scratch", Prefixes: []string{"tmp/", "checkpoints/"}})
	c.MaxObjects = 5000
	c.env.Source, c.source = "st", "st"
	c.env.Now = func() time.Time { return fixtest.Now }
	return c
}

// auditFix audits the collector beside BF-1234's plan and archived record
// (which holds the checkpoint's range): BF005 on the temporary output,
// BF021 on the checkpoint folder.
func auditFix(t *testing.T, c *Collector) fix.Inputs {
	t.Helper()
	return fixtest.Audit(t, c.env.Selector, fixtest.PlanSource(t, "BF-1234", true),
		collectors.Instance{Name: "st", Type: "s3", Collector: c})
}

// delete_objects (allowed) deletes every object of both folders through a
// source that had not resolved its accounts (as bfaudit fix --apply
// builds it), the production job's stay, and an audit afterwards finds
// nothing open.
func TestApplyDeletesTheFolders(t *testing.T) {
	f, c := fixFixture(t)
	in := auditFix(t, c)
	open := fixtest.Open(in, "BF-1234")
	for _, want := range []string{"BF005 s3://st/111111111111/eu-west-1/scratch/tmp/bf_1234/",
		"BF021 s3://st/111111111111/eu-west-1/scratch/checkpoints/bf_1234_replay/"} {
		if !open[want] {
			t.Fatalf("audit: no %s in %v", want, open)
		}
	}
	f.assumed = nil
	res := fixtest.Apply(t, in, "BF-1234", map[string]remedy.Actor{"st": actor{f.fixCollector(t)}}, fixtest.OpenStore(t), remedy.DeleteObjects)
	applied := 0
	for _, r := range res {
		if r.Item.Action != nil && r.Item.Action.Name == remedy.DeleteObjects {
			if r.Status != fix.StatusApplied {
				t.Errorf("%s: %s %s", r.Item.Action.Summary, r.Status, r.Reason)
			}
			applied++
		}
	}
	if applied != 2 {
		t.Errorf("%d deletions; want the two folders'", applied)
	}
	if keys := f.keys(t, "scratch", ""); len(keys) != 1 || keys[0] != "tmp/daily/part-0" {
		t.Errorf("objects left: %q; want only the production job's", keys)
	}
	if len(f.assumed) == 0 || f.assumed[0] != "arn:aws:iam::111111111111:role/bfaudit-read" {
		t.Errorf("roles assumed by the fix: %q", f.assumed)
	}
	if open := fixtest.Open(auditFix(t, c), "BF-1234"); open["BF005 s3://st/111111111111/eu-west-1/scratch/tmp/bf_1234/"] ||
		open["BF021 s3://st/111111111111/eu-west-1/scratch/checkpoints/bf_1234_replay/"] {
		t.Errorf("open after the fix: %v", open)
	}
}

// A folder written to since the audit (one more object) is left alone.
func TestApplyLeavesAFolderWrittenSinceTheAudit(t *testing.T) {
	f, c := fixFixture(t)
	in := auditFix(t, c)
	f.put(t, "scratch", "tmp/bf_1234/part-2", 3, jan12)
	res := fixtest.Apply(t, in, "BF-1234", map[string]remedy.Actor{"st": actor{c}}, fixtest.OpenStore(t), remedy.DeleteObjects)
	for _, r := range res {
		if r.Item.Action != nil && strings.Contains(r.Item.Action.Summary, "tmp/bf_1234/") && r.Status != fix.StatusSkipped {
			t.Errorf("delete_objects on a folder written since: %s %s", r.Status, r.Reason)
		}
	}
	if keys := f.keys(t, "scratch", "tmp/bf_1234/"); len(keys) != 4 {
		t.Errorf("%d objects in the folder; want all 4 left alone", len(keys))
	}
}

// Deletes go 1000 keys a call and stop at the first refused key: the
// action fails saying how many were deleted, and no further call is made.
func TestApplyStopsAtTheFirstRefusal(t *testing.T) {
	f, c := fixFixture(t)
	for i := range 2497 {
		f.put(t, "scratch", fmt.Sprintf("tmp/bf_1234/data/%04d", i), 1, jan10)
	}
	in := auditFix(t, c)
	f.deny = "data/1700" // in the second batch of 1000 (keys sort: _SUCCESS, data/..., part-0, part-1)
	res := fixtest.Apply(t, in, "BF-1234", map[string]remedy.Actor{"st": actor{c}}, fixtest.OpenStore(t), remedy.DeleteObjects)
	var r *fix.Result
	for i := range res {
		if res[i].Item.Action != nil && strings.Contains(res[i].Item.Action.Summary, "tmp/bf_1234/") {
			r = &res[i]
		}
	}
	if r == nil || r.Status != fix.StatusFailed || !strings.Contains(r.Reason, "deleted 1999 of 2500 objects under s3://scratch/tmp/bf_1234/") ||
		!strings.Contains(r.Reason, "stopped at s3://scratch/tmp/bf_1234/data/1700: AccessDenied") {
		t.Fatalf("delete_objects with a refused key: %+v", r)
	}
	if keys := f.keys(t, "scratch", "tmp/bf_1234/"); len(keys) != 501 {
		t.Errorf("%d objects left; want the refused one and the 500 of the batch never sent", len(keys))
	}
	calls := 0
	for _, rq := range f.requests {
		if strings.HasPrefix(rq, "POST /scratch?delete") {
			calls++
		}
	}
	if calls != 3 {
		t.Errorf("%d DeleteObjects calls; want the checkpoint folder's and two of 1000 keys, none after the refusal", calls)
	}
}

// Objects an object lock still retains are not deleted, and the refusal
// names the date; once the retention is over (a later clock) they are.
// A lock without a default retention (each object's own unknown) refuses.
func TestApplyRespectsObjectLock(t *testing.T) {
	for _, tt := range []struct {
		name, lock string
		now        time.Time
		want       string
	}{
		{"retained", `<ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Years>1</Years></DefaultRetention></Rule>`,
			fixtest.Now, "object lock (GOVERNANCE) retains its objects until 2027-01-10T09:30:00Z"},
		{"retention over", `<ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Days>30</Days></DefaultRetention></Rule>`,
			fixtest.Now, ""},
		{"retained at an earlier clock", `<ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Days>30</Days></DefaultRetention></Rule>`,
			time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), "until 2026-02-09T09:30:00Z"},
		{"no default retention", `<ObjectLockEnabled>Enabled</ObjectLockEnabled>`, fixtest.Now, "no default retention"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, c := fixFixture(t)
			f.set("object-lock", "scratch", tt.lock)
			in := auditFix(t, c)
			c.env.Now = func() time.Time { return tt.now }
			res := fixtest.Apply(t, in, "BF-1234", map[string]remedy.Actor{"st": actor{c}}, fixtest.OpenStore(t), remedy.DeleteObjects)
			for _, r := range res {
				if r.Item.Action == nil || !strings.Contains(r.Item.Action.Summary, "tmp/bf_1234/") {
					continue
				}
				if tt.want == "" && r.Status != fix.StatusApplied || tt.want != "" && (r.Status != fix.StatusFailed || !strings.Contains(r.Reason, tt.want)) {
					t.Errorf("%s %s; want %q", r.Status, r.Reason, tt.want)
				}
			}
			if keys := f.keys(t, "scratch", "tmp/bf_1234/"); (len(keys) == 0) != (tt.want == "") {
				t.Errorf("objects left: %q", keys)
			}
		})
	}
}
