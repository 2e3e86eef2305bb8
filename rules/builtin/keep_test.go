package builtin_test

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// Cases of BF028 (keep-label-invalid), joined to the catalogue's lists.
func init() {
	firing = append(firing, keepFiring...)
	quiet = append(quiet, keepQuiet...)
}

// keep labels a table (bfaudit-keep-until, bfaudit-keep-reason).
func keep(until, reason string) func(*model.Artifact) {
	return func(a *model.Artifact) { a.SetKeep(until, reason, "") }
}

var keepFiring = []ruleCase{
	{rule: "BF028", name: "no reason", want: 1, check: mentions("keep-reason: missing"),
		build: func() *estate { return newEstate().plan(completed).artifact(table(), keep("2026-11-01", "")) }},
	{rule: "BF028", name: "not a date", want: 1, check: mentions(`keep-until: "forever" is not a date`),
		build: func() *estate { return newEstate().plan(completed).artifact(table(), keep("forever", "finance")) }},
	{rule: "BF028", name: "beyond the default 90 days", want: 1, check: mentions("more than 90d after the audit"),
		build: func() *estate { return newEstate().plan(completed).artifact(table(), keep("2027-01-31", "finance")) }},
	{rule: "BF028", name: "beyond a configured max_keep", want: 1, check: mentions("more than 14d"),
		opts: func(*testing.T) rules.Options {
			return rules.Options{Params: map[string]map[string]string{"BF028": {"max_keep": "14d"}}}
		},
		build: func() *estate { return newEstate().plan(completed).artifact(table(), keep("2026-10-30", "finance")) }},
	{rule: "BF028", name: "on an artifact tied to no backfill", want: 1,
		build: func() *estate {
			return newEstate().artifact(table(), func(a *model.Artifact) { a.BackfillID, a.URI, a.Name = "", "bq://p/d/misc", "misc" }, keep("", "finance"))
		}},
}

var keepQuiet = []ruleCase{
	{rule: "BF028", name: "date within max_keep and a reason",
		build: func() *estate { return newEstate().plan(completed).artifact(table(), keep("2026-12-30", "finance")) }},
	{rule: "BF028", name: "expired but well formed is BF900's",
		build: func() *estate { return newEstate().plan(completed).artifact(table(), keep("2026-09-01", "finance")) }},
	{rule: "BF028", name: "no keep label", build: func() *estate { return newEstate().plan(completed).artifact(table()) }},
	{rule: "BF028", name: "on a deleted artifact",
		build: func() *estate {
			return newEstate().plan(completed).artifact(table(), state(model.StateDeleted), keep("forever", ""))
		}},
}

// A lingering temp table (BF005) kept by a label on the table itself.
func TestKeepLabelWaivesFindingsOnItsArtifact(t *testing.T) {
	est := func(mods ...func(*model.Artifact)) *estate {
		return newEstate().plan(completed).record(fullRecord("BF-1")).artifact(table(), mods...).artifact(job(model.StateEnabled))
	}
	labelled := func(a *model.Artifact) {
		a.SetKeep("2026-11-01", "finance reads it until the audit", "dana@example.com")
	}

	fs := evaluate(t, est(labelled), now, rules.Options{})
	tbl := ofRule(fs, "BF005")
	if len(tbl) != 1 || tbl[0].Waiver == nil {
		t.Fatalf("BF005 on the labelled table: %+v", tbl)
	}
	w := tbl[0].Waiver
	if w.Origin != "resource" || w.Reason != "finance reads it until the audit" || w.Approver != "dana@example.com" ||
		!w.Expires.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("waiver = %+v", w)
	}
	for _, f := range ofRule(fs, "BF001") {
		if f.Waived() {
			t.Errorf("the label on the table waived a finding on another artifact: %s", f.ArtifactURI)
		}
	}
	if n := len(ofRule(fs, rules.ExpiredWaiverID)) + len(ofRule(fs, "BF028")); n != 0 {
		t.Errorf("a valid label in force raised %d BF900/BF028 findings", n)
	}

	// Config waivers win: the config is reviewed, a label is not.
	cfg := rules.Waiver{Rule: "BF005", Artifact: "bq://p/*", Reason: "config says so", Approver: "carol@example.com", Expires: at("2026-12-01T00:00:00Z")}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	fs = evaluate(t, est(labelled), now, rules.Options{Waivers: []rules.Waiver{cfg}})
	if got := ofRule(fs, "BF005")[0].Waiver; got == nil || got.Origin != "config" {
		t.Errorf("with a config waiver too, waiver = %+v, want the config's", got)
	}

	// Expired at its exact instant: the finding counts again and BF900
	// names the label and who set it.
	fs = evaluate(t, est(labelled), at("2026-11-01T00:00:00Z"), rules.Options{})
	if ofRule(fs, "BF005")[0].Waived() {
		t.Error("BF005 still waived once the keep date is reached")
	}
	exp := ofRule(fs, rules.ExpiredWaiverID)
	if len(exp) != 1 {
		t.Fatalf("BF900 findings = %d, want 1", len(exp))
	}
	e := exp[0]
	if e.ArtifactURI != "bq://p/d/bf_1_tmp" || e.Owner != "dana@example.com" || e.BackfillID != "BF-1" ||
		e.Message != "keep label on table bf_1_tmp expired 2026-11-01: the finding it hid counts again" {
		t.Errorf("BF900 = %q owner %q artifact %q backfill %q", e.Message, e.Owner, e.ArtifactURI, e.BackfillID)
	}

	// An invalid label waives nothing; BF028 reports it.
	fs = evaluate(t, est(keep("2026-11-01", "")), now, rules.Options{})
	if ofRule(fs, "BF005")[0].Waived() || len(ofRule(fs, "BF028")) != 1 {
		t.Errorf("a label without a reason: BF005 waived=%v, BF028 x%d", ofRule(fs, "BF005")[0].Waived(), len(ofRule(fs, "BF028")))
	}
}
