package model

import (
	"testing"
	"time"
)

func TestKeepFromLabelsReadsDashesAsSpaces(t *testing.T) {
	var a Artifact
	a.KeepFromLabels(map[string]string{KeepUntilKey: "2027-01-31", KeepReasonKey: "finance-signoff_pending", "team": "x"})
	if a.Attr(AttrKeepUntil) != "2027-01-31" || a.Attr(AttrKeepReason) != "finance signoff pending" {
		t.Fatalf("attrs %v", a.Attributes)
	}
	var none Artifact
	none.KeepFromLabels(map[string]string{"team": "x"})
	if none.HasKeep() || none.Attributes != nil {
		t.Fatalf("no keep label, yet attrs %v", none.Attributes)
	}
}

func TestKeepFromTextReadsLinesAndKeepsLabels(t *testing.T) {
	var a Artifact
	a.KeepFromText("Replay copy of orders.\n  bfaudit-keep-until: 2027-01-31\nBFAUDIT-KEEP-REASON: finance reads it: until the audit\n")
	if a.Attr(AttrKeepUntil) != "2027-01-31" || a.Attr(AttrKeepReason) != "finance reads it: until the audit" {
		t.Fatalf("attrs %v", a.Attributes)
	}
	b := Artifact{}
	b.SetKeep("2027-02-01", "", "")
	b.KeepFromText("bfaudit-keep-until: 2030-01-01\nbfaudit-keep-reason: audit")
	if b.Attr(AttrKeepUntil) != "2027-02-01" || b.Attr(AttrKeepReason) != "audit" {
		t.Fatalf("a label must win over the text: %v", b.Attributes)
	}
}

func TestParseKeepUntil(t *testing.T) {
	if got, ok := ParseKeepUntil(" 2027-01-31 "); !ok || !got.Equal(time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("got %v %v", got, ok)
	}
	if _, ok := ParseKeepUntil("next-year"); ok {
		t.Fatal("next-year parsed as a date")
	}
}
