package reports

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current code")

// quickstartReport is the report of `bfaudit audit -c
// examples/quickstart/bfaudit.yaml --now 2026-11-30`, as its JSON report
// (bench/testdata/golden/quickstart.json) holds it: reports cannot run an
// audit, which sits above them.
func quickstartReport(t *testing.T) *model.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "quickstart-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r model.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func table(t *testing.T, r *model.Report, width int, color bool) string {
	t.Helper()
	w, err := New("table", Options{Width: width, Color: color})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := w.Write(t.Context(), &b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// widest is the widest line of out, in terminal cells, colour codes left out.
func widest(out string) (int, string) {
	n, line := 0, ""
	for _, l := range strings.Split(ansi.ReplaceAllString(out, ""), "\n") {
		if w := textWidth(l); w > n {
			n, line = w, l
		}
	}
	return n, line
}

// The quickstart's table at the widths people use, with and without
// colour, is kept in testdata/table/: -update rewrites it; review the diff.
func TestTableGolden(t *testing.T) {
	r := quickstartReport(t)
	for _, width := range []int{0, 80, 120, 200} {
		for _, color := range []bool{false, true} {
			name := fmt.Sprintf("quickstart-%d", width)
			if color {
				name += "-color"
			}
			t.Run(name, func(t *testing.T) {
				got := table(t, r, width, color)
				path := filepath.Join("testdata", "table", name+".txt")
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("table differs from %s (go test ./reports -run TestTableGolden -update rewrites it):\n%s", path, got)
				}
			})
		}
	}
}

// No line is wider than the terminal, colour codes not counted, and
// colour moves nothing: the coloured table without its codes is the plain
// one.
func TestTableFitsTerminal(t *testing.T) {
	r := quickstartReport(t)
	for _, width := range []int{80, 120, 200} {
		plain, colored := table(t, r, width, false), table(t, r, width, true)
		if n, l := widest(colored); n > width {
			t.Errorf("width %d: a line of %d columns:\n%s", width, n, l)
		}
		if !strings.Contains(colored, "\x1b[") {
			t.Errorf("width %d: no colour with Color set", width)
		}
		if got := ansi.ReplaceAllString(colored, ""); got != plain {
			t.Errorf("width %d: colour changes the layout:\n%s\nplain:\n%s", width, got, plain)
		}
	}
}

// section is the lines of one section of a table (FINDINGS, BACKFILLS),
// its header first, colour codes left out.
func section(t *testing.T, out, title string) []string {
	t.Helper()
	out = ansi.ReplaceAllString(out, "")
	i := strings.Index(out, "\n"+title+"\n")
	if i < 0 {
		t.Fatalf("no %s in:\n%s", title, out)
	}
	rest := out[i+len(title)+2:]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		rest = rest[:j]
	}
	return strings.Split(strings.TrimSuffix(rest, "\n"), "\n")
}

// startOf is the terminal column where text starts in line, -1 if absent.
func startOf(line, text string) int {
	i := strings.Index(line, text)
	if i < 0 {
		return -1
	}
	return textWidth(line[:i])
}

// An owner in wide runes takes two cells a rune: the columns after it
// still line up, with a width and without.
func TestTableWideRunesKeepColumns(t *testing.T) {
	r := quickstartReport(t)
	r.Findings[1].Owner = "山田太郎@例え.jp"
	r.Findings[2].Owner = "李"
	for _, width := range []int{0, 120, 200} {
		lines := section(t, table(t, r, width, true), "FINDINGS")
		due := startOf(lines[0], "DUE")
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, " ") {
				continue // a message's second line
			}
			if at := startOf(l, "2026-1"); at >= 0 && at != due {
				t.Errorf("width %d: DUE at %d, not under its header at %d:\n%s\n%s", width, at, due, lines[0], l)
			}
		}
		if n, l := widest(strings.Join(lines, "\n")); width > 0 && n > width {
			t.Errorf("width %d: a line of %d cells:\n%s", width, n, l)
		}
	}
}

func TestShortenMiddleKeepsTheEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"gcpiam://shop-analytics/serviceAccounts/backfill-runner@shop-analytics.iam.gserviceaccount.com/keys/8a1f0c2d9e7b4c3a", 60,
			"gcpiam://shop-analytics/…ceaccount.com/keys/8a1f0c2d9e7b4c3a"},
		{"gcpiam://shop-analytics/bindings/roles/bigquery.dataEditor/serviceAccount:bf-1234-runner@shop-analytics.iam", 60,
			"gcpiam://shop-analytics/…t:bf-1234-runner@shop-analytics.iam"},
		{"unleash://flags/projects/default/features/bf-1234-suppress-refund-emails", 26, "unleash://…s-refund-emails"},
		{"airflow:scheduler:daily_revenue:63", 16, "airflow:…enue:63"},
		{"BF-1234", 16, "BF-1234"},
		{"表表表表表表表表表表", 9, "表…表表表"},
	} {
		got := shortenMiddle(c.in, c.w)
		if got != c.want || textWidth(got) > c.w {
			t.Errorf("shortenMiddle(%q, %d) = %q (%d cells), want %q", c.in, c.w, got, textWidth(got), c.want)
		}
	}
}

// On a terminal too narrow for an artifact, its row keeps the end that
// tells it from its neighbours: the key, not the service account they share.
func TestTableWhereKeepsItsEnd(t *testing.T) {
	out := table(t, quickstartReport(t), 80, false)
	for _, tail := range []string{"6f5e4d3c2b1a", "-refund-emails", "fct_revenue", "fct_refunds"} {
		found := false
		for _, l := range section(t, out, "FINDINGS") {
			found = found || (strings.Contains(l, "…") && strings.HasSuffix(l, tail))
		}
		if !found {
			t.Errorf("no shortened WHERE ending in %q:\n%s", tail, out)
		}
	}
}

// Waived findings come after every open one, marked; the open ones keep
// the urgent order: severity first.
func TestTableWaivedLast(t *testing.T) {
	r := quickstartReport(t)
	r.Findings[len(r.Findings)-1].Waiver = &model.Waiver{Reason: "kept"} // a low one, listed last by the audit
	r.Findings[0].Waiver = &model.Waiver{Reason: "kept"}                 // and a critical
	for _, width := range []int{0, 80, 200} {
		seenWaived, last := false, model.SeverityCritical
		for _, l := range section(t, table(t, r, width, false), "FINDINGS")[1:] {
			word, _, _ := strings.Cut(l, " ")
			if strings.HasPrefix(word, "(") {
				continue // the columns left out
			}
			switch word {
			case "":
				continue // a message's next line
			case "waived":
				seenWaived = true
				continue
			}
			var sev model.Severity
			if err := sev.UnmarshalText([]byte(word)); err != nil {
				t.Fatalf("width %d: row without a severity: %q", width, l)
			}
			if seenWaived {
				t.Errorf("width %d: open finding after a waived one:\n%s", width, l)
			}
			if sev > last {
				t.Errorf("width %d: %s after %s", width, sev, last)
			}
			last = sev
		}
		if !seenWaived {
			t.Errorf("width %d: no waived row", width)
		}
	}
}

// Without a width (a file, a pipe) each finding is one whole line.
func TestTableNoWidthOneLineAFinding(t *testing.T) {
	r := quickstartReport(t)
	out := table(t, r, 0, false)
	lines := section(t, out, "FINDINGS")
	if len(lines) != len(r.Findings)+1 {
		t.Errorf("%d lines for %d findings and a header:\n%s", len(lines), len(r.Findings), strings.Join(lines, "\n"))
	}
	for _, f := range r.Findings {
		if !strings.Contains(out, f.Message) || (f.ArtifactURI != "" && f.Location == nil && !strings.Contains(out, f.ArtifactURI)) {
			t.Errorf("finding %s not whole:\n%s", f.RuleID, out)
		}
	}
}

// What did not answer is said first, before any table, at any width.
func TestTableIncompleteFirst(t *testing.T) {
	r := quickstartReport(t)
	r.Summary.Complete = false
	r.Coverage[0].Status = model.CoverageFailed
	r.Coverage[0].Error = "403 forbidden: " + strings.Repeat("the caller lacks notebooks.list on the workspace; ", 4)
	r.Problems = []string{"deadline reached after 5m; the reports are written from what was read"}
	for _, width := range []int{0, 80} {
		out := table(t, r, width, false)
		run, inc, bf := strings.Index(out, "INCOMPLETE RUN: deadline"), strings.Index(out, "INCOMPLETE: some sources"), strings.Index(out, "\nBACKFILLS\n")
		if run < 0 || inc < 0 || run > bf || inc > bf || !strings.Contains(strings.Join(strings.Fields(out), " "), "workspace; the caller") {
			t.Errorf("width %d: the incomplete run is not told first and whole:\n%s", width, out)
		}
		if n, l := widest(out); width > 0 && n > width {
			t.Errorf("width %d: a line of %d cells:\n%s", width, n, l)
		}
	}
}

// A file or a pipe has no width unless COLUMNS says one.
func TestWidthFor(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if n := WidthFor(f, getenv); n != 0 {
		t.Errorf("a file: width %d, want 0", n)
	}
	env["COLUMNS"] = "100"
	if n := WidthFor(f, getenv); n != 100 {
		t.Errorf("COLUMNS=100: width %d", n)
	}
}
