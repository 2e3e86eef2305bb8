package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

func TestArtifactKinds(t *testing.T) {
	for _, c := range []struct {
		expr string
		want string // sorted kinds, "" for any
	}{
		{`artifact.kind == "table"`, "table"},
		{`"grant" == artifact.kind && artifact.owner == ""`, "grant"},
		{`artifact.owner == "" && artifact.kind in ["table", "checkpoint"]`, "checkpoint table"},
		{`(artifact.kind == "table" || artifact.kind == "checkpoint") && has(artifact.expires_at)`, "checkpoint table"},
		{`artifact.kind in ["table", "grant"] && artifact.kind == "table"`, "table"},
		{`artifact.kind == "table" && artifact.kind == "grant"`, "-"}, // never true: no kind
		{`artifact.kind != "table"`, ""},
		{`artifact.kind == "table" || artifact.owner == ""`, ""},
		{`!(artifact.kind == "table")`, ""},
		{`artifact.name == "table"`, ""},
		{`has(artifact.kind) && artifact.owner == ""`, ""},
		{`artifact.kind in artifact.attributes`, ""},
		{`[artifact].exists(artifact, artifact.kind == "table")`, ""},
		{`artifact.kind == "table" && [1].exists(artifact, artifact == 1)`, "table"},
	} {
		rs, err := CompileUserRules([]UserRuleSpec{spec("K1", c.expr)})
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		kinds := rs[0].program.kinds
		got := ""
		if kinds != nil {
			got = strings.Join(slices.Sorted(maps.Keys(kindStrings(kinds))), " ")
			if got == "" {
				got = "-"
			}
		}
		if got != c.want {
			t.Errorf("%s: kinds %q, want %q", c.expr, got, c.want)
		}
	}
}

func kindStrings(kinds map[model.Kind]bool) map[string]bool {
	out := map[string]bool{}
	for k := range kinds {
		out[string(k)] = true
	}
	return out
}

// Skipping the kinds a rule cannot fire on changes nothing a user sees:
// the same findings and the same failures as evaluating every artifact.
func TestKindSkipChangesNothing(t *testing.T) {
	est := &model.Estate{Version: model.EstateVersion}
	for i, k := range []model.Kind{model.KindTable, model.KindGrant, model.KindCheckpoint, model.KindSchedulerJob, model.KindTable, model.KindQueue} {
		est.Artifacts = append(est.Artifacts, model.Artifact{Kind: k, System: "x", Source: "s", URI: fmt.Sprintf("x://%d", i), Name: fmt.Sprintf("n%d", i)})
	}
	ix := correlate.Correlate(est, correlate.MustSelector())
	specs := []UserRuleSpec{
		spec("K1", `artifact.kind == "table" && artifact.owner == ""`),
		spec("K2", `artifact.kind in ["grant", "checkpoint"] && artifact.name != ""`),
		// Fails on every table; on other kinds && gives false first.
		spec("K3", `artifact.kind == "table" && artifact.attributes["missing"] == "x"`),
	}
	run := func(skip bool) []string {
		rs, err := CompileUserRules(specs)
		if err != nil {
			t.Fatal(err)
		}
		if !skip {
			for _, r := range rs {
				r.program.kinds = nil
			}
		}
		eng, err := New(Options{User: rs})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range evaluateWithin(t, eng, ix) {
			out = append(out, f.RuleID+" "+f.ArtifactURI+" "+f.Message)
		}
		slices.Sort(out)
		return out
	}
	with, without := run(true), run(false)
	if !slices.Equal(with, without) {
		t.Errorf("with the kind skip:\n%s\nwithout:\n%s", strings.Join(with, "\n"), strings.Join(without, "\n"))
	}
	if joined := strings.Join(with, "\n"); !strings.Contains(joined, "K1 x://0") || !strings.Contains(joined, "K2 x://1") || !strings.Contains(joined, UserRuleErrorID) {
		t.Errorf("the fixture should fire K1, K2 and report K3's failures:\n%s", joined)
	}
}
