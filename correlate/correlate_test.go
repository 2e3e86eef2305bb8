package correlate

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

func TestSpellingsOfOneBackfillMeet(t *testing.T) {
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-1234", Origin: model.OriginPlan, Owner: "alice"}},
		Artifacts: []model.Artifact{
			{URI: "a", Kind: model.KindTable, Labels: model.TagsOf(map[string]string{"backfill_id": "bf_1234"})},
			{URI: "b", Kind: model.KindTable, Labels: model.TagsOf(map[string]string{"Backfill-ID": "bf-1234"})},
			{URI: "c", Kind: model.KindTable, Name: "bf_1234_refunds_tmp"},
			{URI: "d", Kind: model.KindQueue, Name: "replay-BF1234-x"},
			{URI: "e", Kind: model.KindTable, Name: "daily_revenue"},
		},
	}
	ix := Correlate(est, MustSelector())
	got := ix.ArtifactsOf(model.ParseID("bf_1234"))
	if len(got) != 4 {
		t.Fatalf("tied %d artifacts to BF-1234, want 4 (a, b, c, d)", len(got))
	}
	for _, a := range got {
		if a.BackfillID != "BF-1234" || a.Key != "BF-1234" {
			t.Errorf("%s: backfill id %q, key %q, want the plan's spelling BF-1234 and its key", a.URI, a.BackfillID, a.Key)
		}
	}
	if ix.Artifacts[0].Correlation != "label" || ix.Artifacts[2].Correlation != "name" {
		t.Errorf("correlation = %q, %q", ix.Artifacts[0].Correlation, ix.Artifacts[2].Correlation)
	}
	// "BF1234" without a separator is one more spelling of BF-1234 (a
	// queue or an alert name may hold no '-'), not an unknown backfill.
	if len(ix.Unknown) != 0 {
		t.Errorf("unknown = %v, want none: BF1234 is BF-1234", ix.Unknown)
	}
	if ix.Artifacts[4].BackfillID != "" {
		t.Errorf("daily_revenue should not be tied: %q", ix.Artifacts[4].BackfillID)
	}
}

func TestDeclaredAssetTies(t *testing.T) {
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-7", Origin: model.OriginPlan, AssetsToRemove: []string{"pg://w/tmp.settlements"}}},
		Artifacts: []model.Artifact{{URI: "pg://w/tmp.settlements", Kind: model.KindTable, Name: "tmp.settlements"}},
	}
	ix := Correlate(est, MustSelector())
	if a := ix.ArtifactsOf("BF-7"); len(a) != 1 || a[0].Correlation != "asset" {
		t.Fatalf("declared asset not tied: %+v", ix.Artifacts)
	}
}

func TestMergeSchedulerEvidence(t *testing.T) {
	done := time.Date(2026, 9, 20, 0, 0, 0, 0, time.UTC)
	est := &model.Estate{Backfills: []model.Backfill{
		{ID: "bf_5", Origin: model.OriginScheduler, Status: model.StatusReplayed, Timeline: model.Timeline{CompletedAt: done}, Source: model.Location{Source: "airflow"}},
		{ID: "BF-5", Origin: model.OriginPlan, Status: model.StatusRunning, Owner: "o"},
	}}
	ix := Correlate(est, nil)
	b := ix.Backfill("BF-5")
	if b.Status != model.StatusReplayed || !b.Timeline.CompletedAt.Equal(done) || b.Owner != "o" || b.ID != "BF-5" {
		t.Errorf("merged = %+v", b)
	}
	if len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "plan says running but airflow shows replayed") {
		t.Errorf("disagreement not noted: %v", b.Notes)
	}
}

func TestArchivedRecordRaisesStatus(t *testing.T) {
	at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-1", Origin: model.OriginPlan, Status: model.StatusReplayed}},
		Records:   []model.DecisionRecord{{BackfillID: "bf-1", ArchivedAt: at, ApprovingOwner: "carol"}},
	}
	ix := Correlate(est, nil)
	if b := ix.Backfill("BF-1"); b.Status != model.StatusArchived || len(b.Notes) != 1 {
		t.Errorf("status = %s notes = %v", b.Status, b.Notes)
	}
}

func TestOwnerFallback(t *testing.T) {
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-1", Origin: model.OriginPlan, Owner: "plan-owner"}, {ID: "BF-2", Origin: model.OriginPlan}},
		Records:   []model.DecisionRecord{{BackfillID: "BF-2", ApprovingOwner: "approver"}},
		Artifacts: []model.Artifact{
			{URI: "1", Kind: model.KindTable, BackfillID: "BF-1", Owner: "own"},
			{URI: "2", Kind: model.KindTable, BackfillID: "BF-1"},
			{URI: "3", Kind: model.KindTable, BackfillID: "BF-2"},
			{URI: "4", Kind: model.KindTable, BackfillID: "BF-3"},
		},
	}
	ix := Correlate(est, nil)
	want := []string{"own", "plan-owner", "approver", ""}
	for i, w := range want {
		if got := ix.Owner(&ix.Artifacts[i]); got != w {
			t.Errorf("artifact %d owner = %q, want %q", i, got, w)
		}
	}
}

// Who answers, in order: the artifact's own owner, the plan's owner, the
// CODEOWNERS owner of the plan's file, the record's approver, the
// CODEOWNERS owner of the record's file; the first of several CODEOWNERS
// owners.
func TestOwnerPrecedence(t *testing.T) {
	plan := func(id, owner string, code ...string) model.Backfill {
		return model.Backfill{ID: id, Origin: model.OriginPlan, Owner: owner, CodeOwners: code}
	}
	rec := func(id, approver string, code ...string) model.DecisionRecord {
		return model.DecisionRecord{BackfillID: id, ApprovingOwner: approver, CodeOwners: code}
	}
	est := &model.Estate{
		Backfills: []model.Backfill{plan("BF-1", "plan-owner", "@org/plans"), plan("BF-2", "", "@org/plans", "@bob"),
			plan("BF-3", ""), plan("BF-4", "")},
		Records: []model.DecisionRecord{rec("BF-1", "approver", "@org/records"), rec("BF-2", "approver"),
			rec("BF-3", "approver", "@org/records"), rec("BF-4", "", "@org/records"), rec("BF-5", "", "records@example.com")},
		Artifacts: []model.Artifact{{URI: "a", Kind: model.KindTable, BackfillID: "BF-2", Owner: "label-owner"}},
	}
	ix := Correlate(est, nil)
	for id, want := range map[model.BackfillID]string{"BF-1": "plan-owner", "BF-2": "@org/plans", "BF-3": "approver",
		"BF-4": "@org/records", "BF-5": "records@example.com", "BF-6": ""} {
		if got := ix.BackfillOwner(id); got != want {
			t.Errorf("%s owner %q, want %q", id, got, want)
		}
	}
	if got := ix.Owner(&ix.Artifacts[0]); got != "label-owner" {
		t.Errorf("the artifact's own owner should win over CODEOWNERS: %q", got)
	}
}

func TestAnswered(t *testing.T) {
	est := &model.Estate{Coverage: []model.Coverage{
		{Source: "ok", Status: model.CoverageOK},
		{Source: "deg", Status: model.CoverageDegraded, Errors: []model.ScopeError{{Scope: "proj-a", Error: "403"}}},
		{Source: "dead", Status: model.CoverageFailed},
	}}
	ix := Correlate(est, nil)
	for _, tc := range []struct {
		source, scope string
		want          bool
	}{{"ok", "x", true}, {"deg", "proj-b", true}, {"deg", "proj-a", false}, {"dead", "x", false}, {"never-configured", "", false}} {
		if got := ix.Answered(tc.source, tc.scope); got != tc.want {
			t.Errorf("Answered(%s, %s) = %v, want %v", tc.source, tc.scope, got, tc.want)
		}
	}
}

func TestSelectorErrors(t *testing.T) {
	if _, err := NewSelector(nil, []string{"("}); err == nil || !strings.Contains(err.Error(), "name_patterns[0]") {
		t.Errorf("bad regexp: %v", err)
	}
	if _, err := NewSelector(nil, []string{"bf-\\d+"}); err == nil || !strings.Contains(err.Error(), "capture group") {
		t.Errorf("no group: %v", err)
	}
}

func TestPrincipalsFromPlans(t *testing.T) {
	sel := MustSelector()
	sel.AddAssets([]model.Backfill{{ID: "BF-9", ElevatedAccess: []model.ElevatedAccess{{Principal: "serviceAccount:Runner@p.iam.gserviceaccount.com"}}}})
	for _, m := range []string{"serviceAccount:runner@p.iam.gserviceaccount.com", "runner@p.iam.gserviceaccount.com"} {
		if id, ok := sel.FromPrincipal(m); !ok || id != "BF-9" {
			t.Errorf("FromPrincipal(%s) = %q, %v", m, id, ok)
		}
	}
	if _, ok := sel.FromPrincipal("user:someone@p.com"); ok {
		t.Error("unknown member matched")
	}
}

// Every id is parsed where the index reads it: each plan, record and tied
// artifact carries its normal Key, and the plan's own spelling is what
// reports show.
func TestIndexKeysEveryIDOnce(t *testing.T) {
	at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "bf_7", Origin: model.OriginPlan, Status: model.StatusReplayed}},
		Records: []model.DecisionRecord{
			{BackfillID: "Bf-7"},
			{BackfillID: "BF_7", ArchivedAt: at},
		},
		Artifacts: []model.Artifact{{URI: "t", Kind: model.KindTable, BackfillID: " bf-7 "}},
	}
	ix := Correlate(est, nil)
	if len(ix.IDs) != 1 || ix.IDs[0] != "BF-7" {
		t.Fatalf("ids = %q, want [BF-7]", ix.IDs)
	}
	b := ix.Backfill("BF-7")
	if b == nil || b.ID != "bf_7" || b.Key != "BF-7" || b.Status != model.StatusArchived {
		t.Fatalf("backfill = %+v, want the plan's spelling bf_7 under key BF-7, archived by its record", b)
	}
	if r := ix.Record("BF-7"); r == nil || r.Key != "BF-7" || !r.Archived() {
		t.Errorf("record = %+v, want the archived one", r)
	}
	if len(ix.AllRecords) != 2 || ix.AllRecords[0].Key != "BF-7" || ix.AllRecords[0].BackfillID != "Bf-7" {
		t.Errorf("all records = %+v, want both, keyed, as spelt", ix.AllRecords)
	}
	if a := ix.Artifacts[0]; a.Key != "BF-7" || a.BackfillID != "bf_7" {
		t.Errorf("artifact key %q, id %q; want BF-7 and the plan's spelling", a.Key, a.BackfillID)
	}
	if est.Records[0].Key != "" || est.Artifacts[0].Key != "" {
		t.Error("Correlate wrote keys into the caller's estate")
	}
}

// The default name pattern finds the id after any separator, an
// underscore included (tmp_bf_1234 is how temporary tables are named), and
// never inside a word.
func TestDefaultNamePattern(t *testing.T) {
	s := MustSelector()
	for name, want := range map[string]string{
		"bf_1234_refunds":                    "bf_1234",
		"replay-bf-1234":                     "bf-1234",
		"tmp_bf_1234_refunds":                "bf_1234",
		"shop.revenue.bf_1234_refunds_tmp":   "bf_1234",
		"`shop.revenue.tmp_bf_1234_refunds`": "bf_1234",
		"BF-77":                              "BF-77",
		"pdf_2024_report":                    "",
		"abf_12_x":                           "",
		"bf_12abc":                           "",
		"replay-BF1234-x":                    "BF1234",
		"bf1234_refunds":                     "bf1234",
		// bfloat16 and its kin, as machine-learning files spell them:
		// never a backfill without a separator and three digits.
		"bf16":                         "",
		"BF16":                         "",
		"llama_bf16.ipynb":             "",
		"finetune-bf16-lora":           "",
		"mixed_precision_bf16_fp8":     "",
		"bf8":                          "",
		"bf-1234/BF16_inference.ipynb": "",
	} {
		got, _ := s.FromName(name)
		if got != want {
			t.Errorf("FromName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestTextIDs(t *testing.T) {
	s := MustSelector()
	if got := s.TextIDs("BF-1234: replay (bf_77), see bf-9."); strings.Join(got, ",") != "BF-1234,bf_77,bf-9" {
		t.Errorf("TextIDs = %v", got)
	}
	if id, ok := s.FromText("BF-1234 replay monitor"); !ok || id != "BF-1234" {
		t.Errorf("FromText = %q %v", id, ok)
	}
	if _, ok := s.FromText("nightly revenue"); ok {
		t.Error("FromText found an id in text without one")
	}
}

// TestTiePrecedence: an object that carries two ids is tied by the most
// deliberate one, as docs/correlation.md says: a label someone set, then a
// plan's declared asset, then the object's own name.
func TestTiePrecedence(t *testing.T) {
	s := MustSelector()
	s.AddAssets([]model.Backfill{{ID: "BF-2", AssetsToRemove: []string{"pg://db/public/bf_3_tmp"}}})
	for _, c := range []struct {
		uri, name string
		labels    map[string]string
		id, how   string
	}{
		{"pg://db/public/bf_3_tmp", "bf_3_tmp", map[string]string{"backfill_id": "bf-1"}, "bf-1", "label"},
		{"pg://db/public/bf_3_tmp", "bf_3_tmp", nil, "BF-2", "asset"},
		{"pg://db/public/bf_3_other", "bf_3_other", nil, "bf_3", "name"},
		{"pg://db/public/bf16_weights", "bf16_weights", nil, "", ""},
	} {
		id, how, _ := s.Match(c.uri, c.name, c.labels)
		if id != c.id || how != c.how {
			t.Errorf("Match(%s) = %q by %q, want %q by %q", c.name, id, how, c.id, c.how)
		}
	}
}
