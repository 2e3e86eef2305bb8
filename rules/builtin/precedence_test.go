package builtin_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

// The precedence table is sound: every rule it names exists, no rule
// supersedes itself through a chain, and a fold never hides a blocker of
// an earlier lifecycle step than the finding it goes into (a governance
// finding, step plan, blocks none).
func TestPrecedenceTable(t *testing.T) {
	over := map[string][]string{}
	for _, r := range rules.All() {
		for _, s := range r.Supersedes {
			o, ok := rules.Lookup(s.Rule)
			if !ok {
				t.Errorf("%s supersedes %s, which is no rule", r.ID, s.Rule)
				continue
			}
			if o.Step != model.StepPlan && o.Step < r.Step {
				t.Errorf("%s (step %s) supersedes %s (step %s): folding would hide an earlier step's blocker", r.ID, r.Step, o.ID, o.Step)
			}
			over[r.ID] = append(over[r.ID], o.ID)
		}
	}
	var reach func(from, to string, seen map[string]bool) bool
	reach = func(from, to string, seen map[string]bool) bool {
		for _, n := range over[from] {
			if n == to || (!seen[n] && func() bool { seen[n] = true; return reach(n, to, seen) }()) {
				return true
			}
		}
		return false
	}
	for id := range over {
		if reach(id, id, map[string]bool{}) {
			t.Errorf("%s supersedes itself through a chain", id)
		}
	}
}

// pgEstate is the newcomer's estate: one PostgreSQL table, one login role
// and one grant made for a backfill that finished a month ago, and a plan
// that lists none of them.
func pgEstate() *estate {
	const db = "postgres://db.internal:5432/shop"
	e := newEstate().plan(completed, func(b *model.Backfill) { b.AssetsToRemove = nil })
	e.artifact(model.Artifact{Kind: model.KindTable, System: "postgres", Source: srcWH, Scope: "shop/public",
		URI: db + "/tables/public/bf_1_orders_tmp", Name: "public.bf_1_orders_tmp", BackfillID: "bf_1", Correlation: "name", State: model.StateActive})
	e.artifact(model.Artifact{Kind: model.KindCredential, System: "postgres", Source: srcWH, Scope: "roles",
		URI: db + "/roles/bf_1_writer", Name: "bf_1_writer", BackfillID: "bf_1", Correlation: "name", State: model.StateActive,
		Attributes: model.TagsOf(map[string]string{model.AttrLogin: "true", model.AttrPrincipal: "bf_1_writer", model.AttrTimeBound: "false"})})
	e.artifact(model.Artifact{Kind: model.KindGrant, System: "postgres", Source: srcWH, Scope: "shop/grants",
		URI: db + "/grant/bf_1_writer/table/public.orders", Name: "INSERT,UPDATE on public.orders to bf_1_writer", BackfillID: "bf_1",
		Correlation: "name", State: model.StateActive,
		Attributes: model.TagsOf(map[string]string{model.AttrPrincipal: "bf_1_writer", model.AttrRole: "INSERT,UPDATE", model.AttrTimeBound: "false"})})
	return e
}

// One table and one role made for a backfill give one finding per
// artifact: the grant and the role are to be revoked (BF003, BF004), the
// table dropped (BF005); that none has an expiry (BF102) or is on the
// plan (BF014) is said in their evidence, not in six more findings.
func TestOneFindingPerArtifactProblem(t *testing.T) {
	fs := evaluate(t, pgEstate(), now, rules.Options{})
	per := map[string][]string{}
	for _, f := range fs {
		if strings.HasPrefix(f.ArtifactURI, "postgres://") {
			per[f.ArtifactURI] = append(per[f.ArtifactURI], f.RuleID)
		}
	}
	want := map[string]string{"bf_1_orders_tmp": "BF005", "roles/bf_1_writer": "BF004", "grant/bf_1_writer": "BF003"}
	if len(per) != len(want) {
		t.Errorf("findings on %d artifacts, want %d: %v", len(per), len(want), per)
	}
	for uri, ids := range per {
		for frag, id := range want {
			if strings.Contains(uri, frag) && (len(ids) != 1 || ids[0] != id) {
				t.Errorf("%s: findings %v, want only %s", uri, ids, id)
			}
		}
	}
	for _, f := range ofRule(fs, "BF004") {
		if !slices.Contains(f.Evidence, "not time-bound (BF102): no expiry condition") {
			t.Errorf("BF004 evidence does not say the role has no expiry: %v", f.Evidence)
		}
	}
}

// pair is one entry of the precedence table, with an estate where both
// rules fire on the same artifact.
type pair struct {
	over, under string
	build       func() *estate
	line        string // the evidence line the folded finding becomes
}

var pairs = []pair{
	{"BF003", "BF102", func() *estate {
		return newEstate().plan(completed).artifact(grant(), attr(model.AttrTimeBound, "false"))
	},
		"not time-bound (BF102): no expiry condition"},
	{"BF004", "BF102", func() *estate {
		return newEstate().plan(completed).artifact(credential(), attr(model.AttrTimeBound, "false"))
	}, "not time-bound (BF102): no expiry condition"},
	{"BF003", "BF014", func() *estate { return newEstate().plan(completed).artifact(grant()) }, "missing from the plan (BF014): tied by"},
	{"BF004", "BF014", func() *estate { return newEstate().plan(completed).artifact(credential()) }, "missing from the plan (BF014): tied by"},
	{"BF018", "BF017", func() *estate {
		return flagEstate().plan(completed).artifact(flagOf("suppress-emails-bf-1", attr(model.AttrProduction, "true")))
	}, "lingering flag (BF017): on in staging, a production environment among them"},
	{"BF021", "BF014", func() *estate { return newEstate().plan(completed).artifact(group()) }, "missing from the plan (BF014): tied by"},
	{"BF005", "BF014", func() *estate {
		return newEstate().plan(completed, func(b *model.Backfill) { b.AssetsToRemove = nil }).artifact(table())
	}, "missing from the plan (BF014): tied by"},
	{"BF017", "BF014", func() *estate { return flagEstate().plan(completed).artifact(flagOf("bf-1-replay-mode")) }, "missing from the plan (BF014): tied by"},
}

// Each pair: with the superseding rule disabled both would stand; with
// it, the superseded finding is one line of its evidence, and the
// surviving finding keeps its fingerprint.
func TestPrecedencePairs(t *testing.T) {
	for _, p := range pairs {
		t.Run(p.over+" over "+p.under, func(t *testing.T) {
			alone := evaluate(t, p.build(), now, rules.Options{Disabled: []string{p.over}})
			under := ofRule(alone, p.under)
			if len(under) != 1 {
				t.Fatalf("without %s, %s raised %d findings, want 1: the case does not exercise the pair", p.over, p.under, len(under))
			}
			fs := evaluate(t, p.build(), now, rules.Options{})
			if got := ofRule(fs, p.under); len(got) != 0 {
				t.Errorf("%s still reported beside %s: %s", p.under, p.over, got[0].Message)
			}
			over := ofRule(fs, p.over)
			if len(over) != 1 {
				t.Fatalf("%s raised %d findings, want 1", p.over, len(over))
			}
			f := over[0]
			if f.ArtifactURI != under[0].ArtifactURI {
				t.Fatalf("%s is on %s, %s on %s: not the same artifact", p.over, f.ArtifactURI, p.under, under[0].ArtifactURI)
			}
			if !hasPrefixLine(f.Evidence, p.line) {
				t.Errorf("%s evidence lacks %q: %v", p.over, p.line, f.Evidence)
			}
			if want := model.Fingerprint(f.RuleID, f.Key, f.ArtifactURI); f.Fingerprint != want {
				t.Errorf("fingerprint %s, want %s", f.Fingerprint, want)
			}
			if f.Severity < under[0].Severity {
				t.Errorf("%s is %s, below the %s it absorbed (%s)", p.over, f.Severity, p.under, under[0].Severity)
			}
			// Its fix is not lost: every command of the folded finding is
			// in the remedy of the one that absorbed it (BF017's archive
			// in BF018's).
			if !slices.Contains(f.Folded, p.under) {
				t.Errorf("%s does not list %s as folded: %v", p.over, p.under, f.Folded)
			}
			was, _ := remedy.For(under[0], nil)
			is, _ := remedy.For(f, nil)
			for _, c := range was.Commands() {
				if !slices.Contains(is.Commands(), c) {
					t.Errorf("%s's command is gone from %s's remedy: %s", p.under, p.over, c)
				}
			}
		})
	}
}

// BF014 names the list a grant is missing from: elevated access belongs
// in elevated_access, not in assets_to_remove.
func TestUndeclaredGrantNamesElevatedAccess(t *testing.T) {
	fs := evaluate(t, newEstate().plan(running).artifact(grant()), now, rules.Options{})
	got := ofRule(fs, "BF014")
	if len(got) != 1 || !strings.Contains(got[0].Message, "elevated_access") {
		t.Fatalf("BF014 on a grant within its replay: %v", messages(got))
	}
}

func hasPrefixLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func messages(fs []model.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s", f.RuleID, f.Message))
	}
	return out
}
