package builtin_test

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// A lingering temp table (BF005, medium) waived in several ways.
func TestWaivers(t *testing.T) {
	est := func() *estate {
		return newEstate().plan(completed).record(fullRecord("BF-1")).artifact(table())
	}
	base := rules.Waiver{Reason: "kept for the finance audit", Approver: "carol@example.com", Expires: at("2026-12-01T00:00:00Z")}
	with := func(mod func(*rules.Waiver)) rules.Waiver { w := base; mod(&w); return w }
	fp := model.Fingerprint("BF005", "BF-1", "bq://p/d/bf_1_tmp")
	tests := []struct {
		name       string
		waiver     rules.Waiver
		when       time.Time
		waived     bool   // the BF005 finding is marked waived
		meta       string // the meta rule that reports the waiver, if any
		failMedium bool   // the report fails at --fail-on medium
	}{
		{name: "by fingerprint", waiver: with(func(w *rules.Waiver) { w.Fingerprint = fp }), when: now, waived: true},
		{name: "by rule and backfill in another spelling", waiver: with(func(w *rules.Waiver) { w.Rule = "bf005"; w.Backfill = "bf_1" }), when: now, waived: true},
		{name: "by rule and artifact glob across slashes", waiver: with(func(w *rules.Waiver) { w.Rule = "BF005"; w.Artifact = "bq://p/*" }), when: now, waived: true},
		{name: "by rule and owner", waiver: with(func(w *rules.Waiver) { w.Rule = "lingering-temp-table"; w.Owner = "Alice@example.com" }), when: now, waived: true},
		{name: "selector parts must all match", waiver: with(func(w *rules.Waiver) { w.Rule = "BF005"; w.Backfill = "BF-1"; w.Owner = "bob@example.com" }),
			when: now, meta: rules.StaleWaiverID, failMedium: true},
		{name: "expired at its exact instant", waiver: with(func(w *rules.Waiver) { w.Fingerprint = fp; w.Expires = now }),
			when: now, meta: rules.ExpiredWaiverID, failMedium: true},
		{name: "glob that matches another table is stale", waiver: with(func(w *rules.Waiver) { w.Rule = "BF005"; w.Artifact = "bq://p/other/*" }),
			when: now, meta: rules.StaleWaiverID, failMedium: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.waiver.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			fs := evaluate(t, est(), tt.when, rules.Options{Waivers: []rules.Waiver{tt.waiver}})
			got := ofRule(fs, "BF005")
			if len(got) != 1 {
				t.Fatalf("want the BF005 finding kept in the report, got %d", len(got))
			}
			if got[0].Waived() != tt.waived {
				t.Errorf("waived = %v, want %v", got[0].Waived(), tt.waived)
			}
			if tt.waived && (got[0].Waiver.Reason != base.Reason || got[0].Waiver.Approver != base.Approver || got[0].Waiver.Origin != "config") {
				t.Errorf("waiver on finding = %+v", got[0].Waiver)
			}
			for _, id := range []string{rules.ExpiredWaiverID, rules.StaleWaiverID} {
				want := 0
				if id == tt.meta {
					want = 1
				}
				if n := len(ofRule(fs, id)); n != want {
					t.Errorf("%s findings = %d, want %d", id, n, want)
				}
			}
			r := model.Report{Findings: fs}
			if r.Failing(model.SeverityMedium) != tt.failMedium {
				t.Errorf("Failing(medium) = %v, want %v", !tt.failMedium, tt.failMedium)
			}
		})
	}
}

func TestWaiverFindingFingerprintIgnoresConfigOrder(t *testing.T) {
	w := rules.Waiver{Rule: "BF005", Backfill: "BF-404", Reason: "r", Approver: "a", Expires: at("2027-01-01T00:00:00Z"), Key: "waivers[0]"}
	other := rules.Waiver{Rule: "BF006", Backfill: "BF-405", Reason: "r", Approver: "a", Expires: at("2027-01-01T00:00:00Z"), Key: "waivers[0]"}
	w2 := w
	w2.Key = "waivers[1]"
	a := ofRule(evaluate(t, newEstate().plan(), now, rules.Options{Waivers: []rules.Waiver{w}}), rules.StaleWaiverID)
	b := ofRule(evaluate(t, newEstate().plan(), now, rules.Options{Waivers: []rules.Waiver{other, w2}}), rules.StaleWaiverID)
	if len(a) != 1 || len(b) != 2 {
		t.Fatalf("stale findings: %d and %d, want 1 and 2", len(a), len(b))
	}
	found := false
	for _, f := range b {
		found = found || f.Fingerprint == a[0].Fingerprint
	}
	if !found {
		t.Errorf("the stale finding of the same waiver changed fingerprint when the waiver moved in the config")
	}
}

// plan check runs only governance rules: a waiver of a cleanup rule is
// not stale there.
func TestWaiverNotStaleInPartialRun(t *testing.T) {
	w := rules.Waiver{Rule: "BF005", Backfill: "BF-1", Reason: "r", Approver: "a", Expires: at("2027-01-01T00:00:00Z")}
	fs := evaluate(t, newEstate().plan(), now, rules.Options{Waivers: []rules.Waiver{w}, Only: func(r *rules.Rule) bool { return r.Governance }})
	if n := len(ofRule(fs, rules.StaleWaiverID)); n != 0 {
		t.Errorf("stale waiver reported by a governance-only run: %d", n)
	}
}

func TestWaiverValidate(t *testing.T) {
	ok := rules.Waiver{Rule: "BF005", Backfill: "BF-1", Reason: "r", Approver: "a", Expires: at("2027-01-01T00:00:00Z")}
	tests := []struct {
		name  string
		mod   func(*rules.Waiver)
		field string
	}{
		{"rule alone", func(w *rules.Waiver) { w.Backfill = "" }, "rule"},
		{"no reason", func(w *rules.Waiver) { w.Reason = " " }, "reason"},
		{"no approver", func(w *rules.Waiver) { w.Approver = "" }, "approver"},
		{"no expiry", func(w *rules.Waiver) { w.Expires = time.Time{} }, "expires"},
		{"fingerprint and rule", func(w *rules.Waiver) { w.Fingerprint = "0123456789abcdef" }, "fingerprint"},
		{"bad fingerprint", func(w *rules.Waiver) { w.Rule, w.Backfill, w.Fingerprint = "", "", "xyz" }, "fingerprint"},
		{"nothing", func(w *rules.Waiver) { w.Rule, w.Backfill = "", "" }, "rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := ok
			tt.mod(&w)
			err := w.Validate()
			fe, isField := err.(*rules.FieldError)
			if !isField || fe.Field != tt.field {
				t.Errorf("Validate() = %v, want an error about %s", err, tt.field)
			}
		})
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid waiver: %v", err)
	}
}
