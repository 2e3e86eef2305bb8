package builtin_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/bfaudit/bfaudit/bench"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// allocEstate is the bench estate with every other kind of artifact added
// (flags, silences, notebooks, dashboards, checkpoints, pools,
// variables, docs), a tenth of them tied to no backfill, so that every
// rule has artifacts of its kinds to judge.
func allocEstate(artifacts, backfills int) *model.Estate {
	est := bench.Estate(artifacts, backfills)
	extra := []model.Kind{model.KindCheckpoint, model.KindFeatureFlag, model.KindDashboard, model.KindNotebook,
		model.KindDoc, model.KindSilence, model.KindPool, model.KindVariable}
	for i := range artifacts / 10 {
		k := extra[i%len(extra)]
		a := model.Artifact{Kind: k, System: "other", Source: "plans", URI: fmt.Sprintf("other://%s/%d", k, i),
			Name: fmt.Sprintf("%s_%d", k, i), State: model.StateActive, CreatedAt: model.At(bench.Now.AddDate(0, 0, -i%90)),
			Attributes: model.TagsOf(map[string]string{model.AttrProduction: "true", model.AttrPosition: "enabled", model.AttrReplayPosition: "enabled",
				model.AttrGuard: "true", model.AttrMutesCritical: "true", model.AttrWatchesOnly: "true",
				model.AttrReads:   fmt.Sprintf("bf_%d_tmp\tbf_%d\tpanel 1", 10000+i%backfills, 10000+i%backfills),
				model.AttrSecrets: "aws-access-key\tcell 1\tabc123"})}
		if i%10 != 9 {
			a.Labels = model.TagsOf(map[string]string{"backfill_id": fmt.Sprintf("bf_%d", 10000+i%backfills)})
		}
		if i%50 == 0 {
			a.SetAttr(model.AttrKeepUntil, "someday")
		}
		if i%3 == 0 {
			a.ExpiresAt = model.At(bench.Now.AddDate(0, 0, 60))
		}
		est.Artifacts = append(est.Artifacts, a)
	}
	return est
}

// TestEveryRuleAllocationBounded holds every built-in rule, and CEL user
// rules, to a bounded number of allocations and bytes per finding it
// reports, and a built-in rule to nearly none per artifact it does not: a
// rule that builds a slice or a map per backfill or per artifact it walks
// past, or that walks kinds it does not judge, fails here by name. (make
// allocs runs it.)
func TestEveryRuleAllocationBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates every rule over 22,000 artifacts")
	}
	const artifacts, backfills = 20_000, 1_000
	ix := correlate.Correlate(allocEstate(artifacts, backfills), correlate.MustSelector())
	n := len(ix.Artifacts)
	user, err := rules.CompileUserRules([]rules.UserRuleSpec{
		{ID: "U1", Title: "old table", Severity: model.SeverityLow, Remediation: "r", AppliesTo: rules.AppliesToArtifact,
			Expr: `artifact.kind == "table" && has(backfill.id) && now - artifact.created_at > duration("720h")`},
		{ID: "U2", Title: "unowned", Severity: model.SeverityLow, Remediation: "r", AppliesTo: rules.AppliesToArtifact,
			Expr: `has(backfill.id) && artifact.owner == "" && backfill.owner == ""`},
		{ID: "U3", Title: "no approver", Severity: model.SeverityLow, Remediation: "r", AppliesTo: rules.AppliesToBackfill,
			Expr: `backfill.approver == "" && backfill.status in ["replayed", "verified"]`},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range append(rules.All(), user...) {
		eng, err := rules.New(rules.Options{User: user, Only: func(o *rules.Rule) bool { return o.ID == r.ID }})
		if err != nil {
			t.Fatal(err)
		}
		findings := len(eng.Evaluate(ix, bench.Now)) // warm: regexps, lineage, the index's lazy parts
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		eng.Evaluate(ix, bench.Now)
		runtime.ReadMemStats(&after)
		allocs, bytes := after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc
		t.Logf("%s: %d findings, %d allocations (%.1f a finding), %d bytes (%.0f a finding)", r.ID, findings, allocs,
			float64(allocs)/float64(max(findings, 1)), bytes, float64(bytes)/float64(max(findings, 1)))
		// Each evaluation has its own costs (the index by kind, the keep
		// labels, the fingerprints, the report's slice, the sort): the
		// fixed part. Per artifact a rule may spend a little (a backfill's
		// lists, a dashboard's reads parsed), about one allocation in twenty;
		// per finding what it reports costs (message, evidence,
		// fingerprint, staging), 9 to 40 allocations and 1.4 to 2.3 KB
		// today, bounded at 48 and 3 KB.
		perArtifact := n / 20
		if r.User() {
			// cel-go boxes each field it reads from a model struct: about
			// one allocation an object a CEL rule is evaluated on.
			perArtifact = 2 * n
		}
		if limit := uint64(1000 + perArtifact + 48*findings); allocs > limit {
			t.Errorf("%s: %d allocations for %d findings over %d artifacts, bound %d", r.ID, allocs, findings, n, limit)
		}
		if limit := uint64(1<<20 + 32*n + 3000*findings); bytes > limit {
			t.Errorf("%s: %d bytes for %d findings over %d artifacts, bound %d", r.ID, bytes, findings, n, limit)
		}
	}
}
