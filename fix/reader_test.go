package fix_test

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// A live dashboard reading the backfill's temporary table holds the drop
// back: the lifecycle stops at normalized with the dashboard as blocker,
// and the plan asks to repoint the panel before the table goes.
func TestReaderHoldsTheDropBack(t *testing.T) {
	est := fixtest.Estate(true)
	est.Artifacts = append(est.Artifacts, model.Artifact{Kind: model.KindDashboard, System: "grafana", Source: "grafana", Scope: "general",
		URI: "grafana://grafana/dashboards/rev", Name: "Revenue", State: model.StateActive,
		Attributes: model.TagsOf(map[string]string{model.AttrURL: "https://grafana.example.com/d/rev/revenue",
			model.AttrReads: model.FormatReads([]model.Read{{Identifier: "scratch.bf_1234_tmp", BackfillID: "bf_1234", Where: `panel "Refunds"`}})})})
	est.Coverage = append(est.Coverage, model.Coverage{Source: "grafana", Status: model.CoverageOK})
	in := fixtest.Inputs(t, est)

	b := in.Index.Backfill(model.ParseID("BF-1234"))
	var mine []model.Finding
	for _, f := range in.Report.Findings {
		if f.Key == b.Key {
			mine = append(mine, f)
		}
	}
	lc := rules.Lifecycle(in.Index, b, mine)
	if lc.Next != model.StepNormalized || !strings.Contains(strings.Join(lc.Blockers, "; "), "BF019 dashboard Revenue reads scratch.bf_1234_tmp") {
		t.Fatalf("lifecycle should stop at normalized on the dashboard: next %s, blockers %q", lc.Next, lc.Blockers)
	}

	p, err := fix.NewPlan(in, "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	norm := stepOf(t, p.Backfills[0], model.StepNormalized)
	var repoint string
	for _, it := range norm.Items {
		if it.RuleID == "BF019" && it.Human != nil {
			repoint = it.Human.What
		}
	}
	for _, f := range in.Report.Findings {
		if f.RuleID == "BF019" && f.Owner != "alice@example.com" {
			t.Errorf("the dashboard finding should go to the backfill owner, got %q", f.Owner)
		}
	}
	if !strings.Contains(repoint, `Repoint the queries of dashboard Revenue to revenue.daily`) || !strings.Contains(repoint, `panel "Refunds"`) {
		t.Errorf("normalized should ask to repoint the panel to the final table: %q", repoint)
	}
	ret := stepOf(t, p.Backfills[0], model.StepRetired)
	if !strings.Contains(ret.Waits, "step normalized is not done: BF019") {
		t.Errorf("the drop should wait for the dashboard: %q", ret.Waits)
	}
	for _, it := range ret.Items {
		if it.Ready(ret) {
			t.Errorf("%s ready while a dashboard reads the table", it.Action.Name)
		}
	}

	// Repointed: the dashboard no longer reads the table, the drop is free.
	est.Artifacts[len(est.Artifacts)-1].SetAttr(model.AttrReads, "")
	p, _ = fix.NewPlan(fixtest.Inputs(t, est), "BF-1234", all)
	if ret := stepOf(t, p.Backfills[0], model.StepRetired); ret.Waits != "" {
		t.Errorf("retired still waits once the panel is repointed: %q", ret.Waits)
	}
}

// Checkpoint state waits for the record: a consumer group's deletion
// (retired) waits until the decision record holds its final range and
// replay id (BF020, archived); once it does, the deletion may run.
func TestCheckpointWaitsForTheRecord(t *testing.T) {
	est := fixtest.Estate(true)
	est.Artifacts = append(est.Artifacts, model.Artifact{Kind: model.KindCheckpoint, System: "kafka", Source: "events", Scope: "bf_1234_replay",
		URI: "kafka://events/groups/bf_1234_replay", Name: "bf_1234_replay", BackfillID: "BF-1234", State: model.StateActive,
		Attributes: model.TagsOf(map[string]string{model.AttrCheckpointType: "consumer_group", model.AttrMembers: "0", model.AttrOffsets: "refunds/0=81234"})})
	est.Coverage = append(est.Coverage, model.Coverage{Source: "events", Status: model.CoverageOK})
	p, err := fix.NewPlan(fixtest.Inputs(t, est), "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	arch := stepOf(t, p.Backfills[0], model.StepArchived)
	var tmpl string
	for _, it := range arch.Items {
		if it.RuleID == "BF020" && it.Human != nil {
			tmpl = it.Human.Template
		}
	}
	if !strings.Contains(tmpl, "final_range: refunds/0=81234") || !strings.Contains(tmpl, "replay_id: bf_1234_replay") {
		t.Errorf("archived should ask to record the checkpoint, filled in:\n%s", tmpl)
	}
	if ret := stepOf(t, p.Backfills[0], model.StepRetired); !strings.Contains(ret.Waits, "step archived is not done: BF020") {
		t.Errorf("the group's deletion should wait for the record: %q", ret.Waits)
	}

	est.Records[0].Checkpoint = &model.CheckpointRecord{FinalRange: "refunds/0=81234", ReplayID: "bf_1234_replay"}
	p, _ = fix.NewPlan(fixtest.Inputs(t, est), "BF-1234", all)
	if ret := stepOf(t, p.Backfills[0], model.StepRetired); ret.Waits != "" {
		t.Errorf("retired still waits once the record holds the checkpoint: %q", ret.Waits)
	}
}
