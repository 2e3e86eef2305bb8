package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

func load(t *testing.T, yaml string) (*Config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bfaudit.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(NewViper(), path)
}

func TestCustomRulesAndWaiversLoad(t *testing.T) {
	cfg, err := load(t, `
rules:
  severity: {ACME001: critical, BF005: high}
  disabled: [BF110]
  custom:
    - id: ACME001
      title: Backfill table holds no rows
      severity: low
      remediation: Drop it.
      applies_to: artifact
      expr: artifact.kind == "table" && artifact.attributes.exists(k, k == "rows") && artifact.attributes["rows"] == "0"
waivers:
  - rule: BF005
    backfill: BF-1234
    artifact: "bigquery://shop-analytics/*"
    reason: kept until the finance audit closes
    approver: carol@example.com
    expires: 2026-12-31
  - fingerprint: 0123456789abcdef
    reason: accepted
    approver: carol@example.com
    expires: "2027-01-15T00:00:00Z"
`)
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.RuleOptions
	if len(o.User) != 1 || o.User[0].ID != "ACME001" {
		t.Fatalf("user rules: %+v", o.User)
	}
	if len(o.Waivers) != 2 {
		t.Fatalf("waivers: %+v", o.Waivers)
	}
	w := o.Waivers[0]
	if !w.Expires.Equal(time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)) || w.Source.Line != 13 || w.Key != "waivers[0]" {
		t.Errorf("waiver[0] = expires %s, line %d, key %s", w.Expires, w.Source.Line, w.Key)
	}
	if !o.Waivers[1].Expires.Equal(time.Date(2027, 1, 15, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("waiver[1] expires %s", o.Waivers[1].Expires)
	}
	found := false
	for _, r := range cfg.Engine.Rules() {
		if r.ID == "BF110" {
			t.Error("disabled BF110 still runs")
		}
		found = found || r.ID == "ACME001"
	}
	if !found {
		t.Error("user rule ACME001 does not run")
	}
}

func TestRuleConfigErrors(t *testing.T) {
	rule := func(extra string) string {
		return "rules:\n  custom:\n    - id: ACME001\n      title: t\n      severity: low\n      remediation: r\n      applies_to: artifact\n" + extra
	}
	waiver := func(lines string) string { return "waivers:\n  - " + lines }
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"expression does not compile", rule(`      expr: artifact.kind == "table" && artifact.ownr == ""` + "\n"),
			[]string{"bfaudit.yaml:8: rules.custom[0] (ACME001).expr: column 37: undefined field 'ownr'"}},
		{"expression not bool", rule("      expr: artifact.name\n"), []string{"rules.custom[0] (ACME001).expr", "want bool"}},
		{"misspelt key", rule("      expr: \"true\"\n      aplies_to: backfill\n"), []string{"rules.custom[0]", "aplies_to"}},
		{"bad severity", "rules:\n  custom:\n    - {id: X1, title: t, severity: urgent, remediation: r, applies_to: artifact, expr: \"true\"}\n",
			[]string{"rules.custom[0] (X1).severity", "urgent"}},
		{"waiver without expiry", waiver("{rule: BF005, backfill: BF-1, reason: r, approver: a}\n"), []string{"bfaudit.yaml:2: waivers[0].expires: missing"}},
		{"waiver with bad date", waiver("{rule: BF005, backfill: BF-1, reason: r, approver: a, expires: soon}\n"), []string{"waivers[0].expires", "soon"}},
		{"waiver of unknown rule", waiver("{rule: BF999, backfill: BF-1, reason: r, approver: a, expires: 2027-01-01}\n"), []string{"waivers[0].rule", "BF999"}},
		{"waiver without approver", waiver("{rule: BF005, backfill: BF-1, reason: r, expires: 2027-01-01}\n"), []string{"waivers[0].approver"}},
		{"waiver with unknown key", waiver("{rule: BF005, backfil: BF-1, reason: r, approver: a, expires: 2027-01-01}\n"), []string{"waivers[0]", "backfil"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
