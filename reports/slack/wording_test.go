package slack

import (
	"context"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// post sends r through a fresh per-run sink and returns every text posted.
func post(t *testing.T, r *model.Report, cfg Config, owners model.Owners) (string, *fakeSlack) {
	t.Helper()
	f := newFakeSlack(t)
	f.Users["alice@example.com"] = "U0ALICE"
	cfg.Period = PeriodEvery
	if _, err := newBotSink(t, f, cfg, owners, nil).Post(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return allText(f.Sent()), f
}

// Findings with no backfill are counted apart, not as one more backfill
// (issue 13.12).
func TestDigestCountsFindingsWithoutABackfillApart(t *testing.T) {
	r := estate(day(0), 3) // 4 findings in 3 backfills
	for _, uri := range []string{"bigquery://p/d/orphan_1", "bigquery://p/d/orphan_2"} {
		r.Findings = append(r.Findings, mkFinding("BF011", "", uri, "bq", "alice", model.SeverityLow))
	}
	txt, _ := post(t, r, Config{}, nil)
	if want := "*6 open findings*: 4 across 3 backfills, 2 with no backfill"; !strings.Contains(txt, want) {
		t.Errorf("digest lacks %q:\n%s", want, txt)
	}
	if strings.Contains(txt, "across 4 backfills") {
		t.Error("findings with no backfill are counted as a backfill")
	}
}

func TestDigestSaysOneInTheSingular(t *testing.T) {
	r := estate(day(0), 1)
	r.Findings = r.Findings[:1] // BF-1000 keeps its temp table only
	owners := model.Owners{"alice": {Email: "alice@example.com"}}
	txt, _ := post(t, r, Config{OwnerMessages: true}, owners)
	for _, want := range []string{"*1 open finding* across 1 backfill", "Backfill audit digest · " + day(0).Format("2 Jan 2006 15:04 UTC") + ": 1 open finding (1 medium)",
		"You own *1 open finding* in 1 backfill."} {
		if !strings.Contains(txt, want) {
			t.Errorf("digest lacks %q:\n%s", want, txt)
		}
	}
	for _, bad := range []string{"1 open findings", "1 backfills"} {
		if strings.Contains(txt, bad) {
			t.Errorf("digest says %q", bad)
		}
	}
}

// "Oldest lingering items" lists what has been open a day or more; on a
// first digest nothing has an age and there is no such section.
func TestOldestLingeringItemsNeedAnAge(t *testing.T) {
	txt, _ := post(t, estate(day(0), 3), Config{}, nil)
	if strings.Contains(txt, "Oldest lingering") {
		t.Errorf("a digest where nothing has an age lists oldest lingering items:\n%s", txt)
	}
	r := estate(day(9), 3)
	r.Findings[0].FirstSeen = day(0)
	r.Findings[1].FirstSeen = day(5)
	r.Findings[2].FirstSeen = day(9) // first seen this run: no age
	txt, _ = post(t, r, Config{}, nil)
	if want := "*Oldest lingering items* (2 of the 2 open a day or more)"; !strings.Contains(txt, want) {
		t.Errorf("digest lacks %q:\n%s", want, txt)
	}
	if i, j := strings.Index(txt, "open 9 d"), strings.Index(txt, "open 4 d"); i < 0 || j < 0 || i > j {
		t.Errorf("oldest first, with ages 9 d then 4 d:\n%s", txt)
	}
}
