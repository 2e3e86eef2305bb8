package audit

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// Findings carry the owner a user would look for: the alert's own owner
// label first; without one, the CODEOWNERS owner of a plan that names no
// owner, ahead of the record's approver; a backfill known only from its
// record gets its approver, else its record file's CODEOWNERS owner.
func TestFindingOwners(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	done := now.AddDate(0, -2, 0)
	alert := func(id, owner string) model.Artifact {
		return model.Artifact{URI: "mon://alert/" + id, Kind: model.KindAlert, BackfillID: id, State: model.StateEnabled, Owner: owner,
			Attributes: model.TagsOf(map[string]string{model.AttrWatchesOnly: "true"})}
	}
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-1", Origin: model.OriginPlan, Status: model.StatusVerified, CodeOwners: []string{"@shop/data-platform", "@alice"},
			Timeline: model.Timeline{CompletedAt: done, VerifiedAt: done}}},
		Records: []model.DecisionRecord{{BackfillID: "BF-1", ApprovingOwner: "carol@example.com"},
			{BackfillID: "BF-2", CodeOwners: []string{"records@example.com"}, ArchivedAt: done}},
		Artifacts: []model.Artifact{alert("BF-1", ""), alert("BF-1", "oncall@example.com")},
		Coverage:  []model.Coverage{{Source: "", Status: model.CoverageOK}},
	}
	est.Artifacts[1].URI += "-labelled"
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := Evaluate(est, correlate.MustSelector(), eng, now).Report
	want := map[string]string{"mon://alert/BF-1": "@shop/data-platform", "mon://alert/BF-1-labelled": "oncall@example.com"}
	for _, f := range r.Findings {
		if w, ok := want[f.ArtifactURI]; ok && f.RuleID == "BF007" {
			if f.Owner != w {
				t.Errorf("%s: owner %q, want %q", f.ArtifactURI, f.Owner, w)
			}
			delete(want, f.ArtifactURI)
		}
	}
	if len(want) > 0 {
		t.Errorf("no BF007 finding on %v", want)
	}
	found := false
	for _, b := range r.Backfills {
		if b.Backfill.ID == "BF-2" {
			found = true
			if b.Backfill.Owner != "records@example.com" {
				t.Errorf("BF-2, known from its record only, owner %q", b.Backfill.Owner)
			}
		}
	}
	if !found {
		t.Error("BF-2 not reported")
	}
}
