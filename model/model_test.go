package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseID(t *testing.T) {
	for _, s := range []string{"BF-1234", "bf_1234", "bf-1234", " Bf_1234 ", "\tBF_1234\n"} {
		if ParseID(s) != "BF-1234" {
			t.Errorf("ParseID(%q) = %q", s, ParseID(s))
		}
	}
	if SameID("", "") || !SameID("bf_1", "BF-1") {
		t.Error("SameID")
	}
}

// FuzzParseID holds ParseID's shortcut for ids already normal to the
// folding itself, and the folding to its promise: a normal id stays as it is.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"", "BF-1234", "bf_1234", " BF-1 ", "\u00a0BF-1", "ß", "bf\u0085", "BF-1\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id := ParseID(s)
		want := strings.ReplaceAll(strings.TrimSpace(strings.ToUpper(s)), "_", "-")
		if string(id) != want {
			t.Fatalf("ParseID(%q) = %q, the folding gives %q", s, id, want)
		}
		if again := ParseID(string(id)); again != id {
			t.Fatalf("ParseID(%q) = %q, not normal: parsed again it is %q", s, id, again)
		}
	})
}

// The fingerprint is the same for every spelling of the backfill and
// changes with the rule or the artifact: it must be stable across runs and
// machines, so it is pinned here.
func TestFingerprintStable(t *testing.T) {
	a := Fingerprint("BF003", ParseID("BF-1234"), "gcpiam://p/x")
	if a != Fingerprint("BF003", ParseID("bf_1234"), "gcpiam://p/x") {
		t.Error("spelling changed the fingerprint")
	}
	if a == Fingerprint("BF005", ParseID("BF-1234"), "gcpiam://p/x") || a == Fingerprint("BF003", ParseID("BF-1234"), "gcpiam://p/y") {
		t.Error("fingerprint ignores rule or artifact")
	}
	if a != "b7ec23bd2ac9212c" {
		t.Errorf("fingerprint changed to %q: saved issues and waivers would no longer match", a)
	}
}

func TestSeverityText(t *testing.T) {
	var s Severity
	if err := json.Unmarshal([]byte(`"High"`), &s); err != nil || s != SeverityHigh {
		t.Errorf("unmarshal: %v %v", s, err)
	}
	if err := json.Unmarshal([]byte(`"severe"`), &s); err == nil {
		t.Error("unknown severity accepted")
	}
	if _, err := json.Marshal(Severity(0)); err == nil {
		t.Error("zero severity marshalled")
	}
	if !(SeverityCritical > SeverityHigh && SeverityLow > SeverityInfo) {
		t.Error("severities out of order")
	}
}

func TestDecisionRecordMissingFields(t *testing.T) {
	r := DecisionRecord{Purpose: "p", Range: Interval{Start: time.Now()}, JobID: "j", ValidationQuery: "q", ApprovingOwner: "o", FinalDataLocation: "l"}
	if len(r.MissingFields()) != 0 {
		t.Errorf("complete record reported missing %v", r.MissingFields())
	}
	if got := (DecisionRecord{}).MissingFields(); len(got) != 6 {
		t.Errorf("empty record: %v", got)
	}
}

func TestCoverageAnswered(t *testing.T) {
	c := Coverage{Status: CoverageDegraded, Errors: []ScopeError{{Scope: "", Error: "whole source"}}}
	if c.Answered("any") {
		t.Error("an error without a scope taints the whole source")
	}
}

func TestGluedSpellingIsTheSameBackfill(t *testing.T) {
	for _, s := range []string{"BF1234", "bf1234", "bf_1234", "BF-1234", " bf-1234 "} {
		if got := ParseID(s); got != "BF-1234" {
			t.Errorf("ParseID(%q) = %q, want BF-1234", s, got)
		}
	}
	for s, want := range map[string]BackfillID{
		"airflow:scheduler:daily_revenue:63": "AIRFLOW:SCHEDULER:DAILY-REVENUE:63",
		"BF-12A":                             "BF-12A",
		"1234":                               "1234",
		"BF":                                 "BF",
	} {
		if got := ParseID(s); got != want {
			t.Errorf("ParseID(%q) = %q, want %q", s, got, want)
		}
	}
}
