package rules

import (
	"slices"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// A user rule reads an artifact's labels and attributes as CEL maps:
// index, in, size, comprehensions, has() and equality with a map literal
// either way round, and a missing key is the rule's error, not a false.
func TestUserRulesReadTagsAsMaps(t *testing.T) {
	est := &model.Estate{Version: model.EstateVersion, Artifacts: []model.Artifact{
		{Kind: model.KindTable, System: "x", Source: "s", URI: "x://tagged", Name: "tagged",
			Labels: model.Attrs("team", "ads", "tier", "1"), Attributes: model.Attrs("rows", "0")},
		{Kind: model.KindTable, System: "x", Source: "s", URI: "x://bare", Name: "bare"},
	}}
	ix := correlate.Correlate(est, correlate.MustSelector())
	for _, c := range []struct {
		expr string
		want []string // URIs that fire
	}{
		{`artifact.labels["team"] == "ads"`, []string{"x://tagged"}},
		{`"tier" in artifact.labels && !("owner" in artifact.labels)`, []string{"x://tagged"}},
		{`artifact.labels.size() == 2 && artifact.attributes.size() == 1`, []string{"x://tagged"}},
		{`artifact.labels.exists(k, k == "team") && artifact.labels.all(k, artifact.labels[k] != "")`, []string{"x://tagged"}},
		{`has(artifact.labels)`, []string{"x://tagged"}},
		{`!has(artifact.attributes)`, []string{"x://bare"}},
		{`artifact.labels == {"team": "ads", "tier": "1"}`, []string{"x://tagged"}},
		{`{"tier": "1", "team": "ads"} == artifact.labels`, []string{"x://tagged"}},
		{`artifact.labels == {"team": "ads"}`, nil},
		{`artifact.attributes == {}`, []string{"x://bare"}},
		{`artifact.labels.map(k, k).size() == 2`, []string{"x://tagged"}},
	} {
		if got := firedOn(t, ix, c.expr); !slices.Equal(got, c.want) {
			t.Errorf("%s: fired on %v, want %v", c.expr, got, c.want)
		}
	}
}

// A user rule reads an artifact's times as CEL timestamps, with has()
// true when one is known.
func TestUserRulesReadTimesAsTimestamps(t *testing.T) {
	at := time.Date(2026, 9, 1, 10, 0, 0, 5, time.UTC)
	est := &model.Estate{Version: model.EstateVersion, Artifacts: []model.Artifact{
		{Kind: model.KindTable, System: "x", Source: "s", URI: "x://dated", Name: "dated",
			CreatedAt: model.At(at), ExpiresAt: model.At(at.Add(24 * time.Hour))},
		{Kind: model.KindTable, System: "x", Source: "s", URI: "x://undated", Name: "undated"},
	}}
	ix := correlate.Correlate(est, correlate.MustSelector())
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`has(artifact.expires_at) && now >= artifact.expires_at`, []string{"x://dated"}},
		{`!has(artifact.created_at) && !has(artifact.last_used_at) && !has(artifact.modified_at)`, []string{"x://undated"}},
		{`has(artifact.created_at) && artifact.created_at == timestamp("2026-09-01T10:00:00.000000005Z")`, []string{"x://dated"}},
		{`has(artifact.expires_at) && artifact.expires_at - artifact.created_at == duration("24h")`, []string{"x://dated"}},
		{`has(artifact.created_at) && artifact.created_at.getMonth() == 8`, []string{"x://dated"}},
	} {
		if got := firedOn(t, ix, c.expr); !slices.Equal(got, c.want) {
			t.Errorf("%s: fired on %v, want %v", c.expr, got, c.want)
		}
	}
}

// firedOn returns the URIs, sorted, of the artifacts a user rule of this
// expression fires on.
func firedOn(t *testing.T, ix *correlate.Index, expr string) []string {
	t.Helper()
	rs, err := CompileUserRules([]UserRuleSpec{spec("T1", expr)})
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	eng, err := New(Options{User: rs})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range eng.Evaluate(ix, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)) {
		if f.RuleID == "T1" {
			got = append(got, f.ArtifactURI)
		}
	}
	slices.Sort(got)
	return got
}
