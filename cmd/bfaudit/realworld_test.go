package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/model"
)

// realWorld is the corpus of files this project did not write: each folder
// of testdata/realworld holds real files from public repositories (their
// origin in SOURCE.md), a bfaudit.yaml that reads them and an expect.yaml
// saying what must be read and found (realWorldCase). See
// testdata/realworld/README.md.
const realWorld = "../../testdata/realworld"

// realWorldCase is a case's expect.yaml.
type realWorldCase struct {
	Now      string            `yaml:"now"`
	Coverage map[string]string `yaml:"coverage"`
	Reads    []struct {
		Source  string `yaml:"source"`
		What    string `yaml:"what"`
		Read    int    `yaml:"read"`
		Partial int    `yaml:"partial"`
	} `yaml:"reads"`
	Findings []findingMatch `yaml:"findings"`
	Absent   []findingMatch `yaml:"absent"`
	Errors   []struct {
		Source   string `yaml:"source"`
		Contains string `yaml:"contains"`
	} `yaml:"errors"`
	Secrets []string `yaml:"secrets"`
}

// findingMatch picks findings: by rule, backfill (any spelling), a part of
// the artifact's URI, the severity and a part of the message, each optional; Count, when set, is
// how many findings must match.
type findingMatch struct {
	Rule     string  `yaml:"rule"`
	Backfill string  `yaml:"backfill"`
	URI      string  `yaml:"uri"`
	Severity string  `yaml:"severity"`
	Message  string  `yaml:"message"`
	Owner    *string `yaml:"owner"` // "" for none
	Count    *int    `yaml:"count"`
}

func (m findingMatch) String() string {
	var parts []string
	for _, p := range [][2]string{{"rule", m.Rule}, {"backfill", m.Backfill}, {"uri", m.URI}, {"severity", m.Severity}, {"message", m.Message}} {
		if p[1] != "" {
			parts = append(parts, p[0]+"="+p[1])
		}
	}
	if m.Owner != nil {
		parts = append(parts, fmt.Sprintf("owner=%q", *m.Owner))
	}
	return strings.Join(parts, " ")
}

func (m findingMatch) matches(f model.Finding) bool {
	return (m.Rule == "" || f.RuleID == m.Rule) &&
		(m.Backfill == "" || model.SameID(m.Backfill, f.BackfillID)) &&
		(m.URI == "" || strings.Contains(f.ArtifactURI, m.URI)) &&
		(m.Severity == "" || f.Severity.String() == m.Severity) &&
		(m.Message == "" || strings.Contains(f.Message, m.Message)) &&
		(m.Owner == nil || f.Owner == *m.Owner)
}

func (m findingMatch) count(fs []model.Finding) int {
	n := 0
	for _, f := range fs {
		if m.matches(f) {
			n++
		}
	}
	return n
}

// TestRealWorldCorpus runs every case of the corpus through the command as
// a user would (collect, audit in every format with --verbose, fix) and
// checks what was read and found, and that no secret a sample holds
// appears in any output.
func TestRealWorldCorpus(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(realWorld, "*", "expect.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no case in " + realWorld)
	}
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		t.Run(filepath.Base(dir), func(t *testing.T) { runRealWorldCase(t, dir) })
	}
}

func runRealWorldCase(t *testing.T, dir string) {
	for _, need := range []string{"SOURCE.md", "bfaudit.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, need)); err != nil {
			t.Fatalf("%s: every case names the origin of its files and its config: %v", dir, err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "expect.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c realWorldCase
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("%s/expect.yaml: %v", dir, err)
	}
	if c.Now == "" {
		c.Now = "2026-11-30"
	}
	cfg := filepath.Join(dir, "bfaudit.yaml")
	tmp := t.TempDir()
	var outputs []string // every text that leaves the process

	estate := filepath.Join(tmp, "estate.json")
	_, out, errs := bfaudit(t, "collect", "-c", cfg, "--now", c.Now, "--out", estate, "--verbose")
	outputs = append(outputs, "collect stdout:"+out, "collect stderr:"+errs)
	if b, err := os.ReadFile(estate); err == nil {
		outputs = append(outputs, "estate:"+string(b))
	} else {
		t.Errorf("collect wrote no estate: %v\n%s", err, errs)
	}

	args := []string{"audit", "-c", cfg, "--now", c.Now, "--verbose", "-f", "json"}
	files := map[string]string{}
	for _, f := range []string{"table", "markdown", "html", "sarif"} {
		files[f] = filepath.Join(tmp, "report."+f)
		args = append(args, "-f", f, "-o", f+"="+files[f])
	}
	code, out, errs := bfaudit(t, args...)
	outputs = append(outputs, "audit stderr:"+errs, "json report:"+out)
	if code == exitUsage {
		t.Fatalf("audit: exit %d\n%s", code, errs)
	}
	for f, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("audit wrote no %s report: %v", f, err)
		}
		outputs = append(outputs, f+" report:"+string(b))
	}
	rep := decodeReport(t, out)

	_, fixOut, fixErr := bfaudit(t, "fix", "-c", cfg, "--now", c.Now)
	outputs = append(outputs, "fix stdout:"+fixOut, "fix stderr:"+fixErr)

	checkRealWorldCoverage(t, c, rep)
	for _, m := range c.Findings {
		n := m.count(rep.Findings)
		switch {
		case m.Count != nil && n != *m.Count:
			t.Errorf("finding %s: %d, want %d\n%s", m, n, *m.Count, listFindings(rep.Findings))
		case m.Count == nil && n == 0:
			t.Errorf("finding %s: none\n%s", m, listFindings(rep.Findings))
		}
	}
	for _, m := range c.Absent {
		if n := m.count(rep.Findings); n > 0 {
			t.Errorf("absent %s: %d found\n%s", m, n, listFindings(rep.Findings))
		}
	}
	for _, s := range c.Secrets {
		for _, o := range outputs {
			if s != "" && strings.Contains(o, s) {
				name, _, _ := strings.Cut(o, ":")
				t.Errorf("a secret of the samples (%.6s…) appears in the %s", s, name)
			}
		}
	}
}

func checkRealWorldCoverage(t *testing.T, c realWorldCase, rep model.Report) {
	t.Helper()
	cov := map[string]model.Coverage{}
	for _, k := range rep.Coverage {
		cov[k.Source] = k
	}
	for src, want := range c.Coverage {
		k, ok := cov[src]
		if !ok {
			t.Errorf("coverage: no source %q", src)
			continue
		}
		if got := string(k.State()); got != want {
			t.Errorf("coverage %s: %s, want %s (error %q, errors %v)", src, got, want, k.Error, k.Errors)
		}
	}
	for _, r := range c.Reads {
		k := cov[r.Source]
		var got *model.ReadTotal
		for _, tot := range k.ReadTotals() {
			if tot.What == r.What {
				got = &tot
			}
		}
		switch {
		case got == nil && r.Read == 0 && r.Partial == 0:
			// read: 0 says none was read: no total is that.
		case got == nil:
			t.Errorf("reads %s: no %s read; it read: %q", r.Source, r.What, k.ReadSummary())
		case got.Read != r.Read || got.Partial != r.Partial:
			t.Errorf("reads %s: %d %s (%d in part), want %d (%d in part)", r.Source, got.Read, r.What, got.Partial, r.Read, r.Partial)
		}
	}
	for _, e := range c.Errors {
		found := false
		for _, se := range cov[e.Source].Errors {
			if strings.Contains(se.Scope+": "+se.Error, e.Contains) {
				found = true
			}
		}
		if !found && !strings.Contains(cov[e.Source].Error, e.Contains) {
			t.Errorf("errors %s: none contains %q; errors: %v", e.Source, e.Contains, cov[e.Source].Errors)
		}
	}
}

func listFindings(fs []model.Finding) string {
	lines := make([]string, 0, len(fs))
	for _, f := range fs {
		lines = append(lines, fmt.Sprintf("  %s %s %s %s", f.RuleID, f.Severity, f.BackfillID, f.ArtifactURI))
	}
	sort.Strings(lines)
	return "findings:\n" + strings.Join(lines, "\n")
}
