package fix_test

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// withSpecialAlert adds to est a special alert still watching the replay
// (BF007, fixed by a person: it blocks the normalized step) and a
// temporary PostgreSQL table.
func withSpecialAlert(est *model.Estate) *model.Estate {
	est.Artifacts = append(est.Artifacts,
		model.Artifact{Kind: model.KindAlert, System: "prometheus", Source: "prom", State: model.StateEnabled,
			URI: "prometheus://prom/rules/x/g/alerting/Lag", Name: "Lag", BackfillID: "BF-1234", Attributes: model.TagsOf(map[string]string{model.AttrWatchesOnly: "true"})},
		model.Artifact{Kind: model.KindTable, System: "postgres", Source: "pg", Scope: "analytics", State: model.StateActive,
			URI: "postgres://pg/analytics/scratch.bf_1234_tmp", Name: "scratch.bf_1234_tmp", BackfillID: "BF-1234", Attributes: model.TagsOf(map[string]string{"object": "table"})})
	est.Coverage = append(est.Coverage, model.Coverage{Source: "prom", Status: model.CoverageOK}, model.Coverage{Source: "pg", Status: model.CoverageOK})
	return est
}

func readyActions(sp fix.StepPlan) []string {
	var out []string
	for _, it := range sp.Items {
		if it.Ready(sp) {
			out = append(out, it.Action.Name)
		}
	}
	return out
}

// Issue 27's example: the replay account's roles/bigquery.dataEditor
// binding and its key linger while a special alert keeps the normalized
// step from being done. Revoking the binding and disabling the key may
// run now (the step says what it runs ahead of); deleting the key and
// the temporary table still wait, and the lifecycle still says where the
// backfill stands.
func TestAccessGoesBeforeNormalized(t *testing.T) {
	p, err := fix.NewPlan(fixtest.Inputs(t, withSpecialAlert(iamEstate(nil))), "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	bp := p.Backfills[0]
	if bp.Lifecycle.Next != model.StepNormalized {
		t.Errorf("the lifecycle should still be held at normalized: %+v", bp.Lifecycle)
	}
	rev := stepOf(t, bp, model.StepAccessRevoked)
	if rev.Waits != "" {
		t.Errorf("access revoked waits: %q", rev.Waits)
	}
	if !strings.Contains(rev.Ahead, "step normalized is not done: BF007") {
		t.Errorf("access revoked should say it runs ahead of the special alert: %q", rev.Ahead)
	}
	if got := strings.Join(readyActions(rev), ","); got != remedy.RevokeGrant+","+remedy.DisableKey {
		t.Errorf("ready access removals %q, want revoke_grant and disable_key", got)
	}
	ret := stepOf(t, bp, model.StepRetired)
	if !strings.Contains(ret.Waits, "step normalized is not done: BF007") {
		t.Errorf("retired should still wait for the special alert: %q", ret.Waits)
	}
	if got := readyActions(ret); len(got) != 0 || !strings.Contains(strings.Join(actions(ret), ","), remedy.DropTable) ||
		!strings.Contains(strings.Join(actions(ret), ","), remedy.DeleteKey) {
		t.Errorf("retired: ready %v of %v; the table drop and key deletion must wait", got, actions(ret))
	}

	var b strings.Builder
	if err := fix.WriteScript(&b, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# -- step access revoked: runs now (the replay is finished: access goes first) although step normalized is not done: BF007",
		"\ngcloud projects remove-iam-policy-binding ", "\ngcloud iam service-accounts keys disable ",
		"# gcloud iam service-accounts keys delete ", "# psql "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("script lacks %q:\n%s", want, b.String())
		}
	}
}

// While the replay is still running its access is needed: removing it
// waits, whatever else is done.
func TestAccessWaitsForTheReplay(t *testing.T) {
	est := iamEstate(nil)
	est.Backfills[0].Status = model.StatusRunning
	est.Records = nil // an archived record would say the replay is over
	p, err := fix.NewPlan(fixtest.Inputs(t, est), "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range p.Backfills[0].Steps {
		if got := readyActions(sp); sp.Step >= model.StepAccessRevoked && len(got) > 0 {
			t.Errorf("step %s: %v ready while the replay runs", sp.Step, got)
		}
	}
	rev := stepOf(t, p.Backfills[0], model.StepAccessRevoked)
	if !strings.Contains(rev.Waits, "replay not finished (status running)") || rev.Ahead != "" {
		t.Errorf("access revoked: waits %q, ahead %q", rev.Waits, rev.Ahead)
	}
}
