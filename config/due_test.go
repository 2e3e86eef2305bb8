package config

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
)

func TestDueDefaults(t *testing.T) {
	c, err := Load(NewViper(), write(t, "concurrency: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := c.DuePolicy
	if p.Severity[model.SeverityCritical] != 2*due.Day || p.Severity[model.SeverityHigh] != 7*due.Day ||
		p.Severity[model.SeverityMedium] != 14*due.Day || p.Severity[model.SeverityLow] != 30*due.Day || p.Severity[model.SeverityInfo] != 0 {
		t.Errorf("default severities %v", p.Severity)
	}
	if p.RemindBefore != 2*due.Day || p.EscalateAfter != 3*due.Day || p.NoticeDays != 2 {
		t.Errorf("defaults remind %s escalate %s notice %d", p.RemindBefore, p.EscalateAfter, p.NoticeDays)
	}
}

func TestDueSection(t *testing.T) {
	c, err := Load(NewViper(), write(t, `due:
  severity: {high: 5d, info: 60d, low: none}
  rules: {BF003: 3d}
  classifications: {financial: 36h}
  remind_before: 1d
  escalate_after: 4d
  notice_days: 0
`))
	if err != nil {
		t.Fatal(err)
	}
	p := c.DuePolicy
	if p.Severity[model.SeverityHigh] != 5*due.Day || p.Severity[model.SeverityInfo] != 60*due.Day ||
		p.Severity[model.SeverityLow] != 0 || p.Severity[model.SeverityCritical] != 2*due.Day {
		t.Errorf("severities %v: want high 5d, info 60d, low none, critical kept at 2d", p.Severity)
	}
	if p.Rules["BF003"] != 3*due.Day || p.Classifications[model.ClassFinancial] != 36*time.Hour {
		t.Errorf("rules %v classifications %v", p.Rules, p.Classifications)
	}
	if p.RemindBefore != due.Day || p.EscalateAfter != 4*due.Day || p.NoticeDays != 0 {
		t.Errorf("remind %s escalate %s notice %d", p.RemindBefore, p.EscalateAfter, p.NoticeDays)
	}
}

func TestDueErrorsNameKey(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"due:\n  severity: {high: soon}\n", `bfaudit.yaml:2: due.severity.high: invalid duration "soon"`},
		{"due:\n  severity: {severe: 2d}\n", "severe"},
		{"due:\n  severity: {high: 0d}\n", "due.severity.high: must be a positive duration"},
		{"due:\n  rules: {BF999: 2d}\n", "due.rules.bf999: unknown rule"},
		{"due:\n  classifications: {secret: 2d}\n", "due.classifications.secret: unknown classification (expected one of financial"},
		{"due:\n  remind_before: -1d\n", "due.remind_before: must be a positive duration"},
		{"due:\n  notice_days: -1\n", "due.notice_days: must be a whole number of days"},
		{"due:\n  remind: 2d\n", "remind"},
	} {
		_, err := Load(NewViper(), write(t, c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.body, err, c.want)
		}
	}
}
