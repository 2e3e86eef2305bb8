package reports

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// Every format shows a finding's due date, and says when it is overdue.
func TestDueShownInEveryFormat(t *testing.T) {
	r := sampleReport()
	r.Findings[0].DueAt, r.Findings[0].Overdue = r.Now.AddDate(0, 0, -3), true // overdue by 3d
	r.Findings[1].DueAt = r.Now.AddDate(0, 0, 4)                               // due 2026-12-04
	r.History = &model.History{DueChanges: []model.DueChange{{Fingerprint: "bbbb", At: r.Now,
		From: r.Now.AddDate(0, 0, 14), To: r.Now.AddDate(0, 0, 4), FromPolicy: "severity medium 14d",
		ToPolicy: "rule BF101 4d", Reason: "policy changed"}}}
	moved := "due date moved from 2026-12-14 to 2026-12-04: policy changed (severity medium 14d -&gt; rule BF101 4d)"
	for format, want := range map[string][]string{
		"table":    {"DUE", "OVERDUE 3d", "2026-12-04"},
		"markdown": {"| due |", "OVERDUE 3d", "2026-12-04", moved},
		"html":     {`<th scope="col" role="columnheader">Due</th>`, `<td class="overdue" data-sort=`, ">OVERDUE 3d</td>", "2026-12-04", moved},
		"json":     {`"due_at": "2026-11-27T00:00:00Z"`, `"overdue": true`, `"due_at": "2026-12-04T00:00:00Z"`, `"due_changes"`},
		"sarif":    {"\"due_at\": \"2026-11-27T00:00:00Z\",\n            \"overdue\": true", "\"due_at\": \"2026-12-04T00:00:00Z\",\n            \"overdue\": false"},
	} {
		w, err := New(format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := w.Write(context.Background(), &b, r); err != nil {
			t.Fatal(err)
		}
		for _, s := range want {
			if !strings.Contains(b.String(), s) {
				t.Errorf("%s: missing %q in\n%s", format, s, b.String())
			}
		}
	}
}

// A report without any due date (info findings only) has no due column.
func TestNoDueColumnWithoutDueDates(t *testing.T) {
	for _, format := range []string{"table", "html"} {
		out := render(t, format)
		if strings.Contains(out, "DUE") || strings.Contains(out, `>Due</th>`) {
			t.Errorf("%s: a due column with no due dates", format)
		}
	}
}
