package records

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

const goodPlan = `id: BF-1234
purpose: refund fix
trigger: bug_fix
range: {start: 2026-06-01, end: 2026-08-30}
owner: alice@example.com
status: replayed
expiry: 2026-10-15
elevated_access:
  - {principal: "serviceAccount:x@p.iam.gserviceaccount.com", role: roles/bigquery.dataEditor, expiry: 2026-09-30}
concurrency: 4
feature_flags: [bf-1234-suppress-refund-emails]
dashboards: [bf-1234-replay]
targets: ["bigquery://shop/finance/refunds"]
reprocess_behavior: failed
notified: [finance-analytics]
`

func TestParsePlans(t *testing.T) {
	plans, errs := ParsePlans("p.yaml", []byte(goodPlan))
	if len(errs) > 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	if len(plans) != 1 {
		t.Fatalf("got %d plans, want 1", len(plans))
	}
	b := plans[0]
	if b.ID != "BF-1234" || b.Status != model.StatusReplayed || b.Trigger != model.TriggerBugFix || b.Concurrency != 4 {
		t.Errorf("plan decoded wrong: %+v", b)
	}
	if want := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC); !b.Range.Start.Equal(want) {
		t.Errorf("range start = %v, want %v (a bare date is midnight UTC)", b.Range.Start, want)
	}
	if strings.Join(b.FeatureFlags, ",") != "bf-1234-suppress-refund-emails" || strings.Join(b.Dashboards, ",") != "bf-1234-replay" {
		t.Errorf("feature_flags / dashboards not decoded: %v %v", b.FeatureFlags, b.Dashboards)
	}
	if strings.Join(b.Targets, ",") != "bigquery://shop/finance/refunds" || b.ReprocessBehavior != "failed" || strings.Join(b.Notified, ",") != "finance-analytics" {
		t.Errorf("targets / reprocess_behavior / notified not decoded: %v %q %v", b.Targets, b.ReprocessBehavior, b.Notified)
	}
	if len(b.ElevatedAccess) != 1 || b.ElevatedAccess[0].Expiry.IsZero() {
		t.Errorf("elevated access not decoded: %+v", b.ElevatedAccess)
	}
	if b.Source.Path != "p.yaml" || b.Source.Line != 1 {
		t.Errorf("source = %+v, want p.yaml:1", b.Source)
	}
}

func TestParsePlansErrors(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantErr  string // substring of the error
		wantLine int
		keepID   bool // the plan is still returned by id
	}{
		{"syntax", "id: BF-1\npurpose: [unclosed\n", "p.yaml:", 0, false},
		{"unknown key", "id: BF-1\nexpirey: 2026-01-01\n", "expirey", 2, true},
		{"bad status", "id: BF-1\nstatus: done\n", `status: unknown status "done"`, 2, true},
		{"bad date", "id: BF-1\nexpiry: next week\n", `expiry: expected a date (2026-03-01) or timestamp (2026-03-01T12:00:00Z), got "next week"`, 2, true},
		{"bad range", "id: BF-1\nrange: {start: 2026-02-01, end: 2026-01-01}\n", "range: end 2026-01-01 is not after start", 2, true},
		{"missing id", "purpose: x\n", "id: missing", 1, false},
		{"not a mapping", "- a\n- b\n", "expected a mapping", 1, false},
		{"bad reprocess", "id: BF-1\nreprocess_behavior: all\n", `reprocess_behavior: unknown reprocess behaviour "all"`, 2, true},
		{"empty target", "id: BF-1\ntargets: [\"\"]\n", "targets: entry 1 is empty", 2, true},
		{"negative concurrency", "id: BF-1\nconcurrency: -2\n", "concurrency: must be 1 or more", 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plans, errs := ParsePlans("p.yaml", []byte(tt.yaml))
			if len(errs) != 1 {
				t.Fatalf("got %d errors (%v), want 1", len(errs), errs)
			}
			msg := errs[0].Error()
			if !strings.Contains(msg, tt.wantErr) {
				t.Errorf("error %q does not contain %q", msg, tt.wantErr)
			}
			if tt.wantLine > 0 && !strings.HasPrefix(msg, fmt.Sprintf("p.yaml:%d:", tt.wantLine)) {
				t.Errorf("error %q does not start with p.yaml:%d:", msg, tt.wantLine)
			}
			if tt.keepID != (len(plans) == 1) {
				t.Errorf("kept %d plans, want id kept = %v", len(plans), tt.keepID)
			}
			if tt.keepID && !strings.Contains(plans[0].Notes[0], "plan could not be read") {
				t.Errorf("kept plan should say it could not be read: %v", plans[0].Notes)
			}
		})
	}
}

func TestParsePlansMultiDocument(t *testing.T) {
	data := "id: BF-1\nstatus: planned\n---\nid: BF-2\nstatus: wrong\n---\nid: BF-3\n"
	plans, errs := ParsePlans("multi.yaml", []byte(data))
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "multi.yaml:5:") {
		t.Fatalf("errors = %v, want one at multi.yaml:5", errs)
	}
	var ids []string
	for _, p := range plans {
		ids = append(ids, p.ID)
	}
	if strings.Join(ids, ",") != "BF-1,BF-2,BF-3" {
		t.Errorf("ids = %v, want BF-1,BF-2,BF-3 (BF-2 kept by id)", ids)
	}
	if plans[2].Source.Line != 7 {
		t.Errorf("BF-3 line = %d, want 7", plans[2].Source.Line)
	}
}

func TestParseRecord(t *testing.T) {
	rec, err := ParseRecord("r.md", []byte("---\nbackfill_id: BF-1\npurpose: p\narchived_at: 2026-01-02\n---\n# body\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.BackfillID != "BF-1" || !rec.Archived() || rec.Purpose != "p" {
		t.Errorf("record = %+v", rec)
	}
	if got := rec.MissingFields(); strings.Join(got, ",") != "range,job_id,validation_query,approving_owner,final_data_location" {
		t.Errorf("missing = %v", got)
	}
	rec, err = ParseRecord("r.md", []byte("---\nbackfill_id: BF-1\ncheckpoint:\n  final_range: refunds/0=81234,refunds/1=80991\n  replay_id: bf_1234_replay\n  location: kafka://events/groups/bf_1234_replay\n---\n"))
	if err != nil || !rec.HoldsCheckpoint() || rec.Checkpoint.Location != "kafka://events/groups/bf_1234_replay" {
		t.Errorf("checkpoint not read: %+v %v", rec.Checkpoint, err)
	}
	for name, tc := range map[string]struct{ text, want string }{
		"no front matter": {"# just markdown\n", "r.md:1: no YAML front matter"},
		"checkpoint typo": {"---\nbackfill_id: BF-1\ncheckpoint:\n  replayid: x\n---\n", "r.md:4:"},
		"not closed":      {"---\nbackfill_id: BF-1\n", "not closed"},
		"unknown key":     {"---\nbackfill_id: BF-1\napprover: x\n---\n", "r.md:3:"},
		"no id":           {"---\npurpose: x\n---\n", "backfill_id: missing"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseRecord("r.md", []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// One bad plan among twenty is reported against its file; the other
// nineteen are read.
func TestCollectOneBadPlanAmongTwenty(t *testing.T) {
	dir := t.TempDir()
	plansDir := filepath.Join(dir, "plans")
	os.MkdirAll(plansDir, 0o755)
	for i := 0; i < 20; i++ {
		body := fmt.Sprintf("id: BF-%d\nstatus: planned\n", 100+i)
		if i == 7 {
			body = fmt.Sprintf("id: BF-%d\nstatus: [broken\n", 100+i)
		}
		os.WriteFile(filepath.Join(plansDir, fmt.Sprintf("bf-%d.yaml", 100+i)), []byte(body), 0o644)
	}
	r := inBase(t, &Records{Plans: []string{"plans"}}, dir)
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), r, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.Backfills) != 19 {
		t.Errorf("got %d plans, want 19", len(sink.Backfills))
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "plans/bf-107.yaml" || !strings.Contains(sink.Errors[0].Error, "plans/bf-107.yaml:") {
		t.Errorf("errors = %+v, want one naming plans/bf-107.yaml with its line", sink.Errors)
	}
}

func TestCollectMissingDirectoryFailsSource(t *testing.T) {
	r := inBase(t, &Records{Plans: []string{"nope"}}, t.TempDir())
	err := collectors.Collect(context.Background(), r, collectors.NewTestSink())
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("err = %v, want one naming the missing path", err)
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	var entries []map[string]any
	if err := yamlUnmarshal([]byte(sample), &entries); err != nil {
		t.Fatal(err)
	}
	if _, err := collectors.Decode(entries[0], collectors.Env{}); err != nil {
		t.Fatalf("sample does not decode: %v", err)
	}
	if _, err := collectors.Decode(map[string]any{"type": "records", "plans": []string{"x"}, "plan": "y"}, collectors.Env{}); err == nil || !strings.Contains(err.Error(), "plan") {
		t.Errorf("unknown key not reported: %v", err)
	}
}

func TestRangeTimeZone(t *testing.T) {
	plans, errs := ParsePlans("p.yaml", []byte("id: BF-1\nrange: {start: 2026-03-01, end: 2026-03-02T06:00:00Z, time_zone: Europe/Berlin}\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	if want := time.Date(2026, 3, 1, 0, 0, 0, 0, berlin); !plans[0].Range.Start.Equal(want) {
		t.Errorf("start = %v, want midnight in Berlin %v", plans[0].Range.Start, want)
	}
	if want := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC); !plans[0].Range.End.Equal(want) {
		t.Errorf("a timestamp keeps its own zone: %v", plans[0].Range.End)
	}
	_, errs = ParsePlans("p.yaml", []byte("id: BF-1\nrange: {start: 2026-03-01, time_zone: Mars/Olympus}\n"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "range.time_zone: unknown time zone") {
		t.Errorf("errs = %v", errs)
	}
}
