package records

import (
	"strings"
	"testing"
)

// Errors in plans and records speak the author's language: the key's path,
// the value as written, what was expected and the nearest known key; never
// a Go type (records.rangeDoc) or a YAML tag (!!str), never a cut value.
func TestPlanErrorsNameKeyValueAndExpectation(t *testing.T) {
	doc := `id: BF-1
range: 2026-02-01T00:00:00Z..2026-03-01T00:00:00Z
timeline:
  completed: 2026-03-02
concurrency: two
elevated_access:
  - {principal: user:a@example.com, role: roles/owner, expiry: next friday}
`
	plans, errs := ParsePlans("p.yaml", []byte(doc))
	want := []string{
		`p.yaml:2: range: expected a mapping with keys start, end, time_zone, got "2026-02-01T00:00:00Z..2026-03-01T00:00:00Z"`,
		`p.yaml:4: timeline.completed: unknown key; did you mean completed_at?`,
		`p.yaml:5: concurrency: expected a whole number, got "two"`,
		`p.yaml:7: elevated_access[0].expiry: expected a date (2026-03-01) or timestamp (2026-03-01T12:00:00Z), got "next friday"`,
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
		if strings.Contains(e.Error(), "records.") || strings.Contains(e.Error(), "!!") {
			t.Errorf("Go type or YAML tag in %q", e)
		}
		if pe, ok := e.(*PlanError); !ok || pe.ID != "BF-1" {
			t.Errorf("%v: want a *PlanError for BF-1", e)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(plans) != 1 || plans[0].ID != "BF-1" {
		t.Errorf("the plan is kept by id: %+v", plans)
	}
}

func TestRecordErrorsSuggestTheKey(t *testing.T) {
	text := "---\nbackfill_id: BF-1\nfinal_data_locaton: bigquery://p/d/t\narchived_at: soon\n---\n# notes\n"
	_, err := ParseRecord("r.md", []byte(text))
	want := "r.md:3: final_data_locaton: unknown key; did you mean final_data_location?\n" +
		`r.md:4: archived_at: expected a date (2026-03-01) or timestamp (2026-03-01T12:00:00Z), got "soon"`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}
