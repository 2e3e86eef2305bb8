package correlate

import (
	"slices"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// An alert naming two backfills serves the same set whichever id its
// system wrote first, spelt however; an id nothing describes is unknown,
// and the artifact stays filed under its first id only.
func TestBackfillsOfIgnoresOrderAndSpelling(t *testing.T) {
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-7001", Origin: model.OriginPlan}, {ID: "BF-7002", Origin: model.OriginPlan}},
		Artifacts: []model.Artifact{
			{URI: "a", Kind: model.KindAlert, BackfillID: "bf-7001", Attributes: model.TagsOf(map[string]string{model.AttrOtherBackfills: "bf_7002, BF-9999,bf-7001"})},
			{URI: "b", Kind: model.KindAlert, BackfillID: "bf-9999", Attributes: model.TagsOf(map[string]string{model.AttrOtherBackfills: "bf-7002,bf-7001"})},
			{URI: "c", Kind: model.KindAlert, BackfillID: "bf-7002"},
		},
	}
	ix := Correlate(est, nil)
	want := []model.BackfillID{"BF-7001", "BF-7002", "BF-9999"}
	for _, i := range []int{0, 1} {
		s := ix.BackfillsOf(&ix.Artifacts[i])
		if !slices.Equal(s.IDs, want) || len(s.Backfills) != 2 || s.Backfills[0].ID != "BF-7001" || !slices.Equal(s.Unknown, []model.BackfillID{"BF-9999"}) {
			t.Errorf("artifact %s serves %+v", ix.Artifacts[i].URI, s)
		}
		if !ix.Serves(&ix.Artifacts[i], "BF-7002") || ix.Serves(&ix.Artifacts[i], "BF-1") {
			t.Errorf("artifact %s: Serves wrong", ix.Artifacts[i].URI)
		}
	}
	if s := ix.BackfillsOf(&ix.Artifacts[2]); !slices.Equal(s.IDs, []model.BackfillID{"BF-7002"}) || len(s.Unknown) != 0 {
		t.Errorf("single tie serves %+v", s)
	}
	if n := len(ix.ArtifactsOf("BF-7002")); n != 1 {
		t.Errorf("BF-7002 has %d artifacts filed under it, want 1 (other ids do not refile)", n)
	}
}
