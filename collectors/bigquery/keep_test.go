package bigquery

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// keepFake serves dataset analytics with the lingering temporary table
// bf_7001_tmp (no expiration: BF005 once BF-7001's grace is over), with
// the given labels, description and dataset labels.
func keepFake(t *testing.T, tableLabels, description, datasetLabels string) *fakeBQ {
	f := newFakeBQ(t)
	f.datasets["proj"] = []string{dsEntry("proj", "analytics", datasetLabels)}
	f.datasetBodies["proj/analytics"] = dsBody("proj", "analytics", `[]`)
	f.tables["proj/analytics"] = []string{tableEntry("proj", "analytics", "bf_7001_tmp", tableLabels, ms(jan2), 0)}
	body := tableBody("proj", "analytics", "bf_7001_tmp", 1200, 98765, ms(jan20), 0)
	if description != "" {
		body = strings.Replace(body, `"type":"TABLE"`, `"type":"TABLE","description":`+description, 1)
	}
	f.tableBodies["proj/analytics/bf_7001_tmp"] = body
	return f
}

const keptTable = "bigquery://proj/analytics/bf_7001_tmp"

func TestKeepLabelsRead(t *testing.T) {
	tests := []struct {
		name                          string
		labels, description, dsLabels string
		until, reason                 string
	}{
		{"table labels, dashes read as spaces", `{"backfill_id":"bf-7001","bfaudit-keep-until":"2026-03-15","bfaudit-keep-reason":"finance-sign_off"}`, "", `{}`,
			"2026-03-15", "finance sign off"},
		{"reason from the description when the label has none", `{"backfill_id":"bf-7001","bfaudit-keep-until":"2026-03-15"}`,
			`"Replay copy.\nbfaudit-keep-reason: finance reads it, until the Q1 audit"`, `{}`, "2026-03-15", "finance reads it, until the Q1 audit"},
		{"a dataset label keeps its tables", `{"backfill_id":"bf-7001"}`, "", `{"bfaudit-keep-until":"2026-03-01","bfaudit-keep-reason":"q1-audit"}`,
			"2026-03-01", "q1 audit"},
		{"a malformed date is carried as written", `{"backfill_id":"bf-7001","bfaudit-keep-until":"next-year","bfaudit-keep-reason":"x"}`, "", `{}`,
			"next-year", "x"},
		{"no keep label", `{"backfill_id":"bf-7001"}`, "", `{}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := keepFake(t, tt.labels, tt.description, tt.dsLabels).start()
			sink := collect(t, newCollector(t, srv.URL, "proj"))
			a := sink.Artifact(keptTable)
			if a == nil {
				t.Fatalf("no artifact %s; errors %v", keptTable, sink.Errors)
			}
			if a.Attr(model.AttrKeepUntil) != tt.until || a.Attr(model.AttrKeepReason) != tt.reason {
				t.Errorf("keep_until/keep_reason = %q/%q, want %q/%q", a.Attr(model.AttrKeepUntil), a.Attr(model.AttrKeepReason), tt.until, tt.reason)
			}
		})
	}
}

// plan7001 plays a plans source: BF-7001 replayed on 2026-01-10.
type plan7001 struct{ collectors.Whole }

func (plan7001) CollectUnit(_ context.Context, _ string, sink collectors.Sink) error {
	done := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	sink.AddBackfill(model.Backfill{ID: "BF-7001", Origin: model.OriginPlan, Owner: "data-eng@example.com", Status: model.StatusReplayed,
		Timeline: model.Timeline{StartedAt: done.Add(-48 * time.Hour), CompletedAt: done},
		Source:   model.Location{Source: "plans", Path: "plans/BF-7001.yaml"}})
	sink.AddRead("", "plans", 1, 0)
	return nil
}

// Issue 27, "Done when": a BigQuery table labelled bfaudit-keep-until in
// the future is waived with origin resource, and reported BF900 the day
// after it expires.
func TestKeepLabelWaivesUntilItExpires(t *testing.T) {
	srv := keepFake(t, `{"backfill_id":"bf-7001","bfaudit-keep-until":"2026-03-15","bfaudit-keep-reason":"finance-signoff-pending"}`, "", `{}`).start()
	audit := func(at time.Time) (lingering *model.Finding, expired []model.Finding) {
		c := newCollector(t, srv.URL, "proj")
		c.now = func() time.Time { return at }
		rep := collectortest.Audit(t, []collectors.Instance{
			{Name: "plans", Type: "records", Collector: plan7001{}},
			{Name: "bq", Type: "bigquery", Collector: c},
		}, at)
		for i, f := range rep.Findings {
			switch {
			case f.RuleID == "BF005" && f.ArtifactURI == keptTable:
				lingering = &rep.Findings[i]
			case f.RuleID == "BF900":
				expired = append(expired, f)
			}
		}
		if lingering == nil {
			t.Fatalf("%s: no BF005 on the temporary table; findings %+v", at.Format(time.DateOnly), rep.Findings)
		}
		return lingering, expired
	}

	f, exp := audit(now) // 2026-02-01: the keep runs to 2026-03-15
	if f.Waiver == nil || f.Waiver.Origin != "resource" || f.Waiver.Reason != "finance signoff pending" ||
		!f.Waiver.Expires.Equal(time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("before the keep date, waiver = %+v", f.Waiver)
	}
	if len(exp) != 0 {
		t.Errorf("BF900 before the keep date: %+v", exp)
	}

	f, exp = audit(time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC))
	if f.Waiver != nil {
		t.Errorf("the day after the keep date, BF005 is still waived: %+v", f.Waiver)
	}
	if len(exp) != 1 || exp[0].ArtifactURI != keptTable || !strings.Contains(exp[0].Message, "keep label on table analytics.bf_7001_tmp expired 2026-03-15") ||
		!model.SameID(exp[0].BackfillID, "BF-7001") {
		t.Errorf("BF900 the day after: %+v", exp)
	}
}
