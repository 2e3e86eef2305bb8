package model

import "testing"

func TestTeamsOf(t *testing.T) {
	ts := Teams{
		"payments": {Members: []string{"alice@example.com", "bob"}, Lead: "carol@example.com"},
		"search":   {Members: []string{"dave"}, Channel: "#search"},
	}
	namer := ts.Namer()
	for range 2 { // the second time from what the namer remembers
		for owner, want := range map[string]string{"Alice@Example.com": "payments", "bob": "payments", "dave": "search", "eve": "", "": ""} {
			if got := ts.Name(owner); got != want {
				t.Errorf("team of %q = %q, want %q", owner, got, want)
			}
			if got := namer(owner); got != want {
				t.Errorf("namer: team of %q = %q, want %q", owner, got, want)
			}
		}
	}
	if got := (Teams{}).Namer()("bob"); got != "" {
		t.Errorf("no teams: team of bob = %q", got)
	}
	if _, tm, ok := ts.Of("bob"); !ok || tm.Lead != "carol@example.com" {
		t.Errorf("Of(bob) = %+v, %v; want the payments team with its lead", tm, ok)
	}
}
