package config

import (
	"strings"
	"testing"
)

// A config error names the line of its key in the file: path:line: key:.
func TestErrorsNameTheLineOfTheirKey(t *testing.T) {
	p := write(t, "concurrency: 2\nowners:\n  team-a:\n    email: a@example.com\n  team-x: {}\n")
	_, err := Load(NewViper(), p)
	if err == nil || !strings.HasPrefix(err.Error(), p+":5: owners.team-x: no contact") {
		t.Errorf("err = %v, want it to start with %s:5: owners.team-x: no contact", err, p)
	}
	c := &Config{File: "bfaudit.yaml", raw: []byte("fix:\n  allow:\n    - pause_job\n    - drop_everything\nrules:\n  custom:\n    - id: A\n      expr: x\n")}
	for key, want := range map[string]int{
		"fix.allow[1]":             4,
		"fix.allow[7]":             2, // past the list: the list itself
		"rules.custom[0] (A).expr": 8,
		"report.formats":           0, // not in the file: a default or an env var
		"":                         0,
	} {
		if got := c.lineOf(key); got != want {
			t.Errorf("lineOf(%q) = %d, want %d", key, got, want)
		}
	}
}
