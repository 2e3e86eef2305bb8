package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

func shardCov(source string, i, n int, mode model.ShardMode, owner int, status model.CoverageStatus) model.Coverage {
	return model.Coverage{Source: source, System: "x", Status: status,
		Shard: &model.ShardSpec{Index: i, Count: n, Mode: mode, Owner: owner}}
}

func art(source, uri, state string) model.Artifact {
	return model.Artifact{Source: source, URI: uri, Kind: model.KindTable, State: model.State(state)}
}

func at(h int) time.Time { return time.Date(2026, 11, 30, h, 0, 0, 0, time.UTC) }

func TestMergePlainUnion(t *testing.T) {
	a := &model.Estate{CollectedAt: at(1), Artifacts: []model.Artifact{art("s", "u1", "active"), art("s", "u2", "active")},
		Coverage: []model.Coverage{{Source: "s", Status: model.CoverageOK, Artifacts: 2}}}
	b := &model.Estate{CollectedAt: at(2), Artifacts: []model.Artifact{art("s", "u2", "active"), art("t", "u9", "active")},
		Coverage: []model.Coverage{{Source: "s", Status: model.CoverageDegraded, Artifacts: 1, Errors: []model.ScopeError{{Scope: "p1", Error: "boom"}}},
			{Source: "t", Status: model.CoverageOK, Artifacts: 1}}}
	got, notes, err := MergeEstates([]string{"a.json", "b.json"}, []*model.Estate{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("notes for identical entries: %v", notes)
	}
	if len(got.Artifacts) != 3 {
		t.Errorf("%d artifacts, want 3 (u2 once)", len(got.Artifacts))
	}
	s, _ := got.CoverageFor("s")
	if s.Status != model.CoverageDegraded || s.Answered("p1") || !s.Answered("p2") || s.Artifacts != 2 {
		t.Errorf("coverage of s: %+v (the error in b must stay, counts recomputed)", s)
	}
}

func TestMergeConflictKeepsLater(t *testing.T) {
	a := &model.Estate{CollectedAt: at(3), Artifacts: []model.Artifact{art("s", "u1", "active")}, Coverage: []model.Coverage{{Source: "s", Status: model.CoverageOK}}}
	b := &model.Estate{CollectedAt: at(2), Artifacts: []model.Artifact{art("s", "u1", "deleted")}, Coverage: []model.Coverage{{Source: "s", Status: model.CoverageOK}}}
	got, notes, err := MergeEstates([]string{"a.json", "b.json"}, []*model.Estate{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Artifacts) != 1 || got.Artifacts[0].State != "active" {
		t.Errorf("kept %+v, want a.json's (collected later)", got.Artifacts)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "u1") || !strings.Contains(notes[0], "kept a.json") {
		t.Errorf("notes: %v", notes)
	}
}

// A plan's validation runs in one shard only; the merged plan has it, and
// no conflict is noted.
func TestMergeValidationFromOneShard(t *testing.T) {
	bf := model.Backfill{ID: "BF-1", Source: model.Location{Source: "plans", Path: "p.yaml"}, ValidationSource: "wh"}
	withV := bf
	withV.Validation = &model.Validation{Query: "select 1", Rows: 3}
	a := &model.Estate{CollectedAt: at(1), Backfills: []model.Backfill{withV}, Coverage: []model.Coverage{shardCov("plans", 0, 2, model.ShardEvery, 0, model.CoverageOK)}}
	b := &model.Estate{CollectedAt: at(2), Backfills: []model.Backfill{bf}, Coverage: []model.Coverage{shardCov("plans", 1, 2, model.ShardEvery, 1, model.CoverageOK)}}
	got, notes, err := MergeEstates([]string{"a", "b"}, []*model.Estate{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Backfills) != 1 || got.Backfills[0].Validation == nil || got.Backfills[0].Validation.Rows != 3 || len(notes) != 0 {
		t.Errorf("backfills %+v, notes %v", got.Backfills, notes)
	}
}

func TestMergeShardGaps(t *testing.T) {
	shard := func(i int) *model.Estate {
		return &model.Estate{CollectedAt: at(i + 1), Coverage: []model.Coverage{
			shardCov("split", i, 3, model.ShardSplit, i, model.CoverageOK),
			shardCov("plans", i, 3, model.ShardEvery, i, model.CoverageOK),
			wholeOrElsewhere("whole-on-1", i, 3, 1),
			wholeOrElsewhere("whole-on-2", i, 3, 2),
		}}
	}
	t.Run("missing", func(t *testing.T) {
		got, _, err := MergeEstates([]string{"s0", "s2"}, []*model.Estate{shard(0), shard(2)})
		if err != nil {
			t.Fatal(err)
		}
		ans := model.AnswersOf(got.Coverage)
		for src, want := range map[string]bool{"split": false, "plans": true, "whole-on-1": false, "whole-on-2": true} {
			if ans.Answered(src, "any/unit") != want {
				t.Errorf("%s answered: %v, want %v (%+v)", src, !want, want, got.Coverage)
			}
		}
		c, _ := got.CoverageFor("whole-on-1")
		if c.Status != model.CoverageFailed || !strings.Contains(c.Error, "shard 1/3 is missing") {
			t.Errorf("whole-on-1: %+v", c)
		}
	})
	t.Run("twice", func(t *testing.T) {
		got, _, err := MergeEstates([]string{"s0", "s1", "s1-again", "s2"}, []*model.Estate{shard(0), shard(1), shard(1), shard(2)})
		if err != nil {
			t.Fatal(err)
		}
		ans := model.AnswersOf(got.Coverage)
		if ans.Answered("split", "") || ans.Answered("whole-on-1", "") || !ans.Answered("whole-on-2", "") {
			t.Errorf("coverage: %+v", got.Coverage)
		}
	})
	t.Run("complete", func(t *testing.T) {
		got, _, err := MergeEstates([]string{"s0", "s1", "s2"}, []*model.Estate{shard(0), shard(1), shard(2)})
		if err != nil {
			t.Fatal(err)
		}
		if !model.AnswersOf(got.Coverage).All() {
			t.Errorf("all shards present, yet not answered: %+v", got.Coverage)
		}
	})
	t.Run("failed shard stays failed", func(t *testing.T) {
		s1 := shard(1)
		s1.Coverage[0].Status, s1.Coverage[0].Error = model.CoverageFailed, "deadline"
		got, _, err := MergeEstates([]string{"s0", "s1", "s2"}, []*model.Estate{shard(0), s1, shard(2)})
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := got.CoverageFor("split"); c.Status != model.CoverageFailed || !strings.Contains(c.Error, "s1: deadline") {
			t.Errorf("split: %+v", c)
		}
	})
	t.Run("different N", func(t *testing.T) {
		other := &model.Estate{Coverage: []model.Coverage{shardCov("split", 0, 2, model.ShardSplit, 0, model.CoverageOK)}}
		if _, _, err := MergeEstates([]string{"s0", "two"}, []*model.Estate{shard(0), other}); err == nil || !strings.Contains(err.Error(), "two") {
			t.Errorf("err = %v", err)
		}
	})
}

func wholeOrElsewhere(src string, i, n, owner int) model.Coverage {
	if i == owner {
		return shardCov(src, i, n, model.ShardWhole, owner, model.CoverageOK)
	}
	return shardCov(src, i, n, model.ShardElsewhere, owner, model.CoverageFailed)
}

func TestEstatePaths(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.json", "a.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := EstatePaths([]string{dir})
	if err != nil || len(got) != 2 || filepath.Base(got[0]) != "a.json" {
		t.Errorf("EstatePaths = %v, %v", got, err)
	}
	empty := t.TempDir()
	if _, err := EstatePaths([]string{empty}); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty directory: %v", err)
	}
	if _, err := EstatePaths([]string{filepath.Join(dir, "nope.json")}); err == nil {
		t.Error("missing file: no error")
	}
}

// A source's notes survive a merge, each once however many estates say it.
func TestMergeKeepsSourceNotes(t *testing.T) {
	crd := "cluster prod does not serve monitoring.coreos.com/v1 (no PrometheusRule CRD)"
	a := &model.Estate{CollectedAt: at(1), Coverage: []model.Coverage{{Source: "rules", Status: model.CoverageOK, Notes: []string{crd}}}}
	b := &model.Estate{CollectedAt: at(2), Coverage: []model.Coverage{{Source: "rules", Status: model.CoverageOK, Notes: []string{crd, "second note"}}}}
	got, _, err := MergeEstates([]string{"a.json", "b.json"}, []*model.Estate{a, b})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := got.CoverageFor("rules")
	if strings.Join(c.Notes, "|") != crd+"|second note" {
		t.Errorf("merged notes = %q, want the two notes once each", c.Notes)
	}
}
