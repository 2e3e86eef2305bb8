package slack

import (
	"strings"
	"testing"

	"github.com/slack-go/slack"
)

func digestText(d *digest) string {
	var b strings.Builder
	for _, m := range d.messages() {
		for _, bl := range m.Blocks {
			switch x := bl.(type) {
			case *slack.HeaderBlock:
				b.WriteString(x.Text.Text + "\n")
			case *slack.SectionBlock:
				b.WriteString(x.Text.Text + "\n")
			}
		}
	}
	return b.String()
}

func TestDigestReadsWellForALead(t *testing.T) {
	r := estate(day(3), 2)
	r.Findings[0].FirstSeen = day(0) // seen three days ago
	r.Findings[1].FirstSeen = day(3) // first seen this run
	txt := digestText(newDigest(r, periodLabel(PeriodEvery, periodKey(PeriodEvery, r.Now), r.Now), changes{}, 10))
	cases := []struct {
		name, text string
		want       bool
	}{
		{"header dates a per-run digest", "Backfill audit digest · 5 Mar 2026 09:00 UTC", true},
		{"age of an item seen before", "· open 3 d", true},
		{"no age for an item first seen this run", "open 0 d", false},
		{"backfill owner not repeated on its lines", "· bigquery://proj/ds/tmp_0 · alice\n", false},
		{"backfill line keeps the artifact", "lingering BF005 · bigquery://proj/ds/tmp_0\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Contains(txt, tc.text); got != tc.want {
				t.Errorf("contains %q = %v, want %v:\n%s", tc.text, got, tc.want, txt)
			}
		})
	}
}
