package pushgateway

import (
	"context"
	"maps"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// A replay's progress pushed to a real Pushgateway is found and tied to
// its backfill by the job's name or a grouping label (a value with a '/'
// included); a group of no backfill is counted and left out.
func TestRealPushgateway(t *testing.T) {
	base := realURL(t)
	id, n := newID()
	tag := remedytest.RandomTag(t)
	byName := map[string]string{"job": "bf_" + n + "_replay"}
	byLabel := map[string]string{"job": tag + "_progress", "backfill_id": id, "path": "exports/" + tag}
	other := map[string]string{"job": tag + "_nightly", "instance": "etl 1"}
	for _, g := range []map[string]string{byName, byLabel, other} {
		push(t, base, g)
	}
	sink, err := collectortest.Collect(t, collectorOn(t, base, "pg"))
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	if n, _ := sink.Read("", "metric groups"); n < 3 {
		t.Errorf("read %d metric groups, want at least the 3 pushed", n)
	}
	for _, c := range []struct {
		labels map[string]string
		how    string
	}{{byName, "name"}, {byLabel, "label"}} {
		a := sink.Artifact("pushgateway://pg" + keyPath(c.labels))
		if a == nil {
			t.Fatalf("group %v not reported; artifacts %+v", c.labels, sink.Artifacts)
		}
		if a.Kind != model.KindCheckpoint || !model.SameID(a.BackfillID, id) || a.Correlation != c.how || !maps.Equal(a.Labels.Map(), c.labels) ||
			a.State != model.StateActive || a.Attr(model.AttrAPIURL) != base || time.Since(a.ModifiedAt.Time()).Abs() > time.Minute {
			t.Errorf("group %v reported as %+v", c.labels, a)
		}
	}
	if a := sink.Artifact("pushgateway://pg" + keyPath(other)); a != nil {
		t.Errorf("a group of no backfill reported: %+v", a)
	}
}

// The audit says what the issue asks: a finished backfill's progress
// still on the gateway is lingering replay state (BF021), and it must be
// written down before it goes (BF020).
func TestRealAuditFindsTheLingeringGroup(t *testing.T) {
	base := realURL(t)
	id, n := newID()
	labels := map[string]string{"job": "bf_" + n + "_replay"}
	push(t, base, labels)
	in := fixtest.Audit(t, correlate.MustSelector(), fixtest.PlanSource(t, id, false),
		collectors.Instance{Name: "pg", Type: "pushgateway", Collector: collectorOn(t, base, "pg")})
	open := fixtest.Open(in, id)
	uri := "pushgateway://pg" + keyPath(labels)
	if !open["BF021 "+uri] || !open["BF020 "+uri] {
		t.Errorf("open findings of %s: %v; want BF020 and BF021 on %s", id, open, uri)
	}
}

// The printed command, run by sh with the real curl, deletes exactly the
// group it names from the real Pushgateway, whatever the job and labels
// hold: what the collector wrote, the remedy reads back, and the
// Pushgateway reads as the same grouping key.
func TestRealCommandDeletesTheGroup(t *testing.T) {
	base := realURL(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	id, _ := newID()
	tag := remedytest.RandomTag(t)
	var groups []map[string]string
	for i, name := range remedytest.HostileNames {
		g := map[string]string{"job": "j" + name, "backfill_id": id, "case": tag + string(rune('a'+i)), "note": name}
		groups = append(groups, g)
		push(t, base, g)
	}
	p := collectorOn(t, base, "pg")
	sink, err := collectortest.Collect(t, p)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, g := range groups {
		a := sink.Artifact("pushgateway://pg" + keyPath(g))
		if a == nil {
			t.Fatalf("group %q not reported", g)
		}
		r, ok := remedy.Build(model.Finding{RuleID: "BF021", BackfillID: id, ArtifactURI: a.URI}, remedy.Facts{Artifact: a})
		if !ok || len(r.Actions) != 1 {
			t.Fatalf("%q: %+v", g, r)
		}
		cmd := exec.Command("sh", "-c", r.Actions[0].Shell)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", r.Actions[0].Shell, err, out)
		}
	}
	if pwned, _ := filepath.Glob(filepath.Join(dir, "pwned*")); len(pwned) > 0 {
		t.Errorf("a name broke out of its quoting: %v", pwned)
	}
	left, err := list(context.Background(), p.client)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range left {
		if g.Labels["backfill_id"] == id {
			t.Errorf("group %q is still there", g.Labels)
		}
	}
}
