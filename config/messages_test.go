package config

import (
	"strings"
	"testing"
)

// Config errors say, for every bad key, the file, the key's path, the
// value and what was expected, and suggest the nearest known key; a Go
// type name (config.Config, []interface {}) is never shown, and each
// problem is a line of its own that names the file.
func TestLoadErrorsSayWhatWasMeant(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string // lines, after "<file>: " ("<file>:" before a line number)
	}{
		{"top-level typo", "concurency: 3\n", []string{"1: concurency: unknown key; did you mean concurrency?"}},
		{"sink key typo and a list for text", "github: {repo: a/b, tokn: x}\nreport: {fail_on: [high]}\n", []string{
			"1: github.tokn: unknown key; did you mean token?",
			"2: report.fail_on: expected text, got a list",
		}},
		{"number", "concurrency: four\n", []string{`1: concurrency: expected a whole number, got "four"`}},
		{"source key typo", "sources:\n  - {type: inventory, name: inv, file: [a]}\n", []string{
			"2: sources[0].file: unknown key; did you mean files?",
		}},
		{"waiver key typo", "waivers:\n  - {rule: BF005, backfil: BF-1, reason: r, approver: a, expires: 2027-01-01}\n", []string{
			"2: waivers[0].backfil: unknown key; did you mean backfill?",
		}},
		{"owner key typo", "owners:\n  a@b.c: {gihub: x}\n", []string{"2: owners.a@b.c.gihub: unknown key; did you mean github?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, tt.body)
			_, err := Load(NewViper(), p)
			if err == nil {
				t.Fatal("want an error")
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = p + ": " + w
				if w[0] >= '0' && w[0] <= '9' { // "2: key: ...", the key's line
					want[i] = p + ":" + w
				}
			}
			if err.Error() != strings.Join(want, "\n") {
				t.Errorf("error:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
			}
			for _, bad := range []string{"config.", "interface {}", "map[string]", "'"} {
				if strings.Contains(err.Error(), bad) {
					t.Errorf("%q in the message: %s", bad, err)
				}
			}
		})
	}
}
