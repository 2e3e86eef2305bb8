package cloudasset

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	_ "github.com/bfaudit/bfaudit/collectors/bigquery"
	_ "github.com/bfaudit/bfaudit/collectors/gcpiam"
	_ "github.com/bfaudit/bfaudit/collectors/pubsub"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

// planSource holds BF-7001's plan: finished long before the audit, on
// financial data, with an elevated grant to faultAccount.
type planSource struct{ collectors.Whole }

func (planSource) CollectUnit(_ context.Context, _ string, sink collectors.Sink) error {
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	sink.AddBackfill(model.Backfill{
		ID: "BF-7001", Origin: model.OriginPlan, Purpose: "replay refunds after the filter bug",
		Trigger: model.TriggerBugFix, JobID: "daily_revenue",
		Range: model.Interval{Start: day("2025-10-01"), End: day("2026-01-01")},
		Owner: "data-eng@example.com", Approver: "lead@example.com",
		Classification: model.ClassFinancial, Status: model.StatusReplayed,
		Timeline:        model.Timeline{StartedAt: day("2026-01-05"), CompletedAt: day("2026-01-10")},
		Expiry:          day("2026-02-01"),
		ValidationQuery: "SELECT 1", CleanupOwner: "data-eng@example.com",
		ElevatedAccess: []model.ElevatedAccess{{Principal: "serviceAccount:" + faultAccount,
			Role: "roles/bigquery.dataEditor", Expiry: day("2026-02-01")}},
		Strategy: model.StrategyInterval, Concurrency: 1, Pool: "backfill", WriteMode: model.WritePartitionOverwrite,
		SideEffectsDisabled: true, TrialInterval: true, ConsumersNotified: true, KeepEvidence: true,
		Source: model.Location{Source: "plans", Path: "plans/bf-7001.yaml"},
	})
	sink.AddRead("", "plans", 1, 0)
	return nil
}

// auditWith collects from the sources the entries describe (plus the
// plan) and runs the whole rule catalogue.
func auditWith(t *testing.T, entries ...map[string]any) (*model.Estate, *model.Report) {
	t.Helper()
	sel := correlate.MustSelector()
	instances := []collectors.Instance{{Name: "plans", Type: "records", Collector: planSource{}}}
	for _, e := range entries {
		in, err := collectors.Decode(e, collectors.Env{Selector: sel})
		if err != nil {
			t.Fatalf("decode %v: %v", e["type"], err)
		}
		if cl, ok := in.Collector.(interface{ Close() error }); ok {
			t.Cleanup(func() { cl.Close() })
		}
		instances = append(instances, in)
	}
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	est, err := audit.Collect(ctx, instances, sel, 0, auditNow)
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	return est, audit.Evaluate(est, sel, eng, auditNow).Report
}

var principals = []any{map[string]any{"member": "serviceAccount:" + faultAccount, "backfill_id": "BF-7001"}}

// TestSameArtifactsAndFindingsAsPerProjectCollectors runs one estate
// through bigquery + pubsub + gcpiam (per-project APIs) and through
// cloudasset (the Asset API), and requires the same artifacts (every
// field but the source's name) and the same findings, fingerprints
// included, from the whole rule catalogue.
func TestSameArtifactsAndFindingsAsPerProjectCollectors(t *testing.T) {
	e := sampleEstate()
	startPubSub(t, e)
	fp := &fakeProjects{t: t, estate: e, pageSize: 2}
	projects := fp.start()
	useServiceAccount(t, projects.URL+"/token")
	fa := newFakeAsset(t, e)
	fa.pageSize = 3
	assets := fa.start()
	ids := []any{"proj", "other"}

	perProject, r1 := auditWith(t,
		map[string]any{"type": "bigquery", "projects": ids, "endpoint": projects.URL, "principals": principals},
		map[string]any{"type": "pubsub", "projects": ids},
		map[string]any{"type": "gcpiam", "projects": ids, "endpoint": projects.URL, "principals": principals},
	)
	viaAsset, r2 := auditWith(t,
		map[string]any{"type": "cloudasset", "scopes": []any{"organizations/42"}, "endpoint": assets.URL, "principals": principals},
	)
	for _, r := range []*model.Report{r1, r2} {
		if !r.Summary.Complete {
			t.Fatalf("a run did not answer fully: %+v", r.Coverage)
		}
	}
	a1, a2 := artifactsJSON(perProject), artifactsJSON(viaAsset)
	if len(perProject.Artifacts) < 10 {
		t.Fatalf("the fixture yields only %d artifacts: %s", len(perProject.Artifacts), a1)
	}
	if a1 != a2 {
		t.Errorf("artifacts differ:\nper-project collectors:\n%s\ncloudasset:\n%s", a1, a2)
	}
	f1, f2 := findingsJSON(r1), findingsJSON(r2)
	for _, rule := range []string{"BF003", "BF004", "BF005", "BF006"} {
		if !strings.Contains(f1, `"rule_id":"`+rule+`"`) {
			t.Errorf("the fixture draws no %s finding: the comparison would prove less", rule)
		}
	}
	// A grant without an expiry is BF102, folded into its BF003 or BF004.
	if !strings.Contains(f1, `(BF102)`) {
		t.Errorf("the fixture draws no BF102 (folded into a grant's or key's finding): the comparison would prove less")
	}
	if f1 != f2 {
		t.Errorf("findings differ:\nper-project collectors:\n%s\ncloudasset:\n%s", f1, f2)
	}
	t.Logf("%d artifacts, %d findings; calls: per-project APIs %d (+ Pub/Sub), Asset API %d",
		len(perProject.Artifacts), len(r1.Findings), fp.count(), fa.calls())
}

// artifactsJSON lists the estate's artifacts one per line, in URI order,
// without the source name (the one field that must differ).
func artifactsJSON(est *model.Estate) string {
	arts := slices.Clone(est.Artifacts)
	sort.Slice(arts, func(i, j int) bool { return arts[i].URI < arts[j].URI })
	var lines []string
	for _, a := range arts {
		a.Source = ""
		lines = append(lines, string(must(json.Marshal(a))))
	}
	return strings.Join(lines, "\n")
}

// findingsJSON lists the report's findings one per line, in fingerprint
// order, without the source's name (in Source, and in the evidence line
// that says where an artifact was seen).
func findingsJSON(r *model.Report) string {
	fs := slices.Clone(r.Findings)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Fingerprint < fs[j].Fingerprint })
	var lines []string
	for _, f := range fs {
		if f.Source != "plans" {
			f.Evidence = slices.Clone(f.Evidence)
			for i, e := range f.Evidence {
				e = strings.ReplaceAll(e, `"`+f.Source+`"`, "<source>")
				if strings.HasSuffix(e, " in "+f.Source) {
					e = strings.TrimSuffix(e, f.Source) + "<source>"
				}
				f.Evidence[i] = e
			}
			f.Source = ""
		}
		lines = append(lines, string(must(json.Marshal(f))))
	}
	return strings.Join(lines, "\n")
}
