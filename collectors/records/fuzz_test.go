package records

import (
	"strings"
	"testing"
)

const fuzzPath = "plans/fuzz.yaml"

// FuzzParsePlans: no input panics; every error names the file; a file
// never reads as "no plans and no error".
func FuzzParsePlans(f *testing.F) {
	for _, s := range []string{
		goodPlan, "", "# only a comment\n", "---\n---\n", "id: BF-1\n---\nid: BF-2\nstatus: wrong\n",
		"id: BF-1\npurpose: [unclosed\n", "- a\n- b\n", "id: &a BF-1\nowner: *a\n", "id: BF-1\nexpiry: next week\n",
		"id: BF-1\nrange: {start: 2026-03-01, end: 2026-01-01, time_zone: Mars/Olympus}\n", "~\n", "id: [1, 2]\n",
		"id: BF-1\nelevated_access: [{principal: p, role: r, expiry: {a: 1}}]\n", "\ufeffid: BF-1\n", "id: BF-1\nconcurrency: 1e99\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		plans, errs := ParsePlans(fuzzPath, data)
		if len(plans) == 0 && len(errs) == 0 {
			t.Fatalf("no plan and no error for %q", data)
		}
		for _, e := range errs {
			if !strings.HasPrefix(e.Error(), fuzzPath) {
				t.Errorf("error does not name the file: %q", e)
			}
		}
		for _, p := range plans {
			if p.Source.Path != fuzzPath || p.ID == "" {
				t.Errorf("plan without its file or id: %+v", p)
			}
		}
		// Key lines read the same documents; they must not panic either.
		_, _ = ParseKeyLines(data)
	})
}

// FuzzParseRecord: no input panics; an error names the file; a record
// that parses names its backfill.
func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{
		"---\nbackfill_id: BF-1\npurpose: p\narchived_at: 2026-01-02\n---\n# body\n", "", "---\n", "---\n---\n",
		"# just markdown\n", "---\nbackfill_id: BF-1\n", "---\nbackfill_id: BF-1\napprover: x\n---\n",
		"---\n- a\n---\n", "\ufeff---\nbackfill_id: x\n---\n", "---\nbackfill_id: &a x\npurpose: *a\n---\n",
		"---\nrange: {start: nope}\nbackfill_id: x\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ParseRecord("records/fuzz.md", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "records/fuzz.md") {
				t.Errorf("error does not name the file: %q", err)
			}
			return
		}
		if rec.BackfillID == "" || rec.Source.Path != "records/fuzz.md" {
			t.Errorf("record without id or file: %+v", rec)
		}
	})
}
