package metrics

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// Owners, rule ids and source names come from the estate: a label on a
// resource can hold anything. Whatever it holds, the text must parse
// (or Prometheus drops the whole file, and every alert with it) and the
// value must read back as written, invalid UTF-8 aside.
func TestHostileLabelValues(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"quote", `a"b`, `a"b`},
		{"backslash", `C:\new\table`, `C:\new\table`},
		{"newline", "x\ny 1\nbfaudit_source_up 1", "x\ny 1\nbfaudit_source_up 1"},
		{"closing brace", `"} 99 #`, `"} 99 #`},
		{"utf8", "équipe-données 🧹", "équipe-données 🧹"},
		{"invalid utf8", "ok\xff\xfe", "ok\uFFFD"},
		{"long", strings.Repeat("x", 1000), strings.Repeat("x", maxLabelRunes-1) + "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &model.Report{
				Now:      now,
				Findings: []model.Finding{{RuleID: c.in, Severity: model.SeverityHigh, Owner: c.in}},
				Coverage: []model.Coverage{{Source: c.in, System: "x", Status: model.CoverageOK}},
			}
			text, err := Text(Families(r, Run{Complete: true}))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(text), "\n"); n != 12 {
				t.Errorf("%d lines, want 12: a value broke a line\n%s", n, text)
			}
			fams := parse(t, text)
			f := labelMap(fams[Findings].GetMetric()[0])
			s := labelMap(fams[SourceUp].GetMetric()[0])
			if f["owner"] != c.want || f["rule"] != c.want || s["source"] != c.want {
				t.Errorf("read back owner %q rule %q source %q, want %q", f["owner"], f["rule"], s["source"], c.want)
			}
			if len(fams) != 4 {
				t.Errorf("a value made %d families:\n%s", len(fams), text)
			}
		})
	}
}

// The escaping is the text format's own: a reader that knows only the
// spec (the textfile collector) reads the same.
func TestEscapingIsTheTextFormats(t *testing.T) {
	r := &model.Report{Now: now, Findings: []model.Finding{{RuleID: "R", Severity: model.SeverityLow, Owner: "a\"b\\c\nd"}}}
	text, err := Text(Families(r, Run{}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `owner="a\"b\\c\nd"`; !strings.Contains(string(text), want) {
		t.Errorf("text lacks %s:\n%s", want, text)
	}
}
