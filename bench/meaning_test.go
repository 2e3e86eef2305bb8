package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
)

// reportWant is what a user reads in every format of one audit of the
// tiny generated estate. The quickstart's goldens (golden_test.go) hold
// every byte of one audit; these hold what matters of two more, so a
// change of wording or layout passes and a lost, doubled or mislabelled
// finding, a wrong count or a waiver not applied does not.
type reportWant struct {
	name, cfg string
	// counts: backfills, artifacts, decision records, open findings, waived.
	counts [5]int
	// severities: the open findings by severity, as the table says them.
	severities string
	// backfills: "ID LIFECYCLE OPEN", as the table's rows read.
	backfills []string
	// findings: "SEVERITY RULE BACKFILL N": N findings of this rule on
	// this backfill ("-": none) at this severity ("waived": waived).
	findings []string
	// located: "RULE BACKFILL PATH:LINE", a finding on a plan, record or
	// config file and the line it points at.
	located []string
	// waived: the waived findings and the waiver's reason.
	waived []waivedWant
}

type waivedWant struct{ rule, backfill, uri, reason string }

// waivedBy says whether a finding of rule on uri is waived for reason.
func (c reportWant) waivedBy(rule, uri, reason string) bool {
	return slices.ContainsFunc(c.waived, func(w waivedWant) bool { return w.rule == rule && w.uri == uri && w.reason == reason })
}

// The findings both configs give, apart from those a config changes.
var tinyCommon = []string{
	"critical BF003 BF-10001 5",
	"high BF004 BF-10002 10",
	"high BF102 BF-10001 5",
	"medium BF005 BF-10003 2",
	"medium BF005 BF-10004 1",
	"low BF007 BF-10003 10",
	"low BF009 BF-10002 1",
	"medium BF011 BF-900004 1", "medium BF011 BF-900024 1", "medium BF011 BF-900044 1",
	"medium BF011 BF-900064 1", "medium BF011 BF-900084 1",
	"low BF014 BF-10000 20",
	"low BF014 BF-10001 5",
	"low BF014 BF-10004 4",
	"medium BF103 BF-10001 1",
	"medium BF108 BF-10001 1",
	"medium BF108 BF-10003 1",
	"medium BF111 BF-10001 1",
}

var tinyLocated = []string{
	"BF103 BF-10001 plans/BF-10001.yaml:1",
	"BF108 BF-10001 plans/BF-10001.yaml:1",
	"BF111 BF-10001 plans/BF-10001.yaml:1",
	"BF108 BF-10003 plans/BF-10003.yaml:1",
	"BF009 BF-10002 records/BF-10002.md:1",
}

// tinyBackfills are the estate's backfills as the table lists them, given
// the open findings of the five planned ones: their lifecycle does not
// change with the config, and the five backfills no plan describes have
// one finding each.
func tinyBackfills(open ...int) []string {
	var out []string
	for i, life := range []string{"4/5 archived", "0/5 not verified", "2/5 normalized", "1/5 verified", "4/5 archived"} {
		out = append(out, fmt.Sprintf("BF-%d %s %d", 10000+i, life, open[i]))
	}
	for i := range 5 {
		out = append(out, fmt.Sprintf("BF-9000%d4 unknown backfill 1", 2*i))
	}
	return out
}

var meaningCases = []reportWant{{
	// The default rules: the catch-up rule (BF106) fires on BF-10000's
	// replay jobs, and nothing is waived.
	name:       "tiny",
	counts:     [5]int{10, 100, 3, 90, 0},
	severities: "critical 5, high 15, medium 22, low 48",
	backfills:  tinyBackfills(30, 18, 11, 21, 5),
	findings: append([]string{
		"low BF014 BF-10003 8",
		"medium BF106 BF-10000 10",
	}, tinyCommon...),
	located: tinyLocated,
}, {
	// testdata/tiny.yaml: BF106 disabled, three of the five CEL rules
	// fire (U1 and U3 match nothing), the owner waiver takes one BF014
	// finding out of the open count, and the waiver of BF005 on BF-10001,
	// which matches nothing, is itself reported (BF901) at its line. Its
	// BF001 parameter and BF002 override change nothing visible: the
	// estate draws neither rule.
	name:       "tinycfg",
	cfg:        "testdata/tiny.yaml",
	counts:     [5]int{10, 100, 3, 110, 1},
	severities: "critical 5, high 41, medium 14, low 49, info 1",
	backfills:  tinyBackfills(22, 31, 12, 34, 5),
	findings: append([]string{
		"low BF014 BF-10003 7",
		"waived BF014 BF-10003 1",
		"info BF901 - 1",
		"medium U2 BF-10000 2",
		"high U4 BF-10001 13",
		"high U4 BF-10003 13",
		"low U5 BF-10002 1",
		"low U5 BF-10003 1",
	}, tinyCommon...),
	located: append([]string{
		"U5 BF-10002 plans/BF-10002.yaml:1",
		"U5 BF-10003 plans/BF-10003.yaml:1",
		"BF901 - testdata/tiny.yaml:41",
	}, tinyLocated...),
	waived: []waivedWant{{"BF014", "BF-10003", "bigquery://p3/d/t_3", "labels are <checked> | elsewhere"}},
}}

// TestReportsMeaning audits the tiny estate under both configs and reads
// every format for what a user notices.
func TestReportsMeaning(t *testing.T) {
	tiny := saveEstate(t, 100, 5)
	checks := map[string]func(*testing.T, reportWant, []byte){
		"table": checkTable, "json": checkJSON, "markdown": checkMarkdown, "html": checkHTML, "sarif": checkSARIF,
	}
	for _, c := range meaningCases {
		t.Run(c.name, func(t *testing.T) {
			r, cfg := auditAs(t, c.cfg, tiny)
			for _, f := range formats {
				t.Run(f, func(t *testing.T) { checks[f](t, c, render(t, f, r, cfg)) })
			}
			t.Run("narrow table", func(t *testing.T) { checkNarrowTable(t, c, r) })
		})
	}
}

// sameFindings compares the findings a report lists, one "SEVERITY RULE
// BACKFILL" a finding, with the wanted counts.
func sameFindings(t *testing.T, want []string, rows []string) {
	t.Helper()
	got := map[string]int{}
	for _, r := range rows {
		got[r]++
	}
	for _, w := range want {
		i := strings.LastIndexByte(w, ' ')
		n, _ := strconv.Atoi(w[i+1:])
		if got[w[:i]] != n {
			t.Errorf("%d findings %q, want %d", got[w[:i]], w[:i], n)
		}
		delete(got, w[:i])
	}
	for k, n := range got {
		t.Errorf("%d unexpected findings %q", n, k)
	}
}

// countLine is the audit's totals in the words of the table and Markdown.
func countLine(c reportWant) (what, waived string) {
	what = fmt.Sprintf("%d backfills, %d artifacts, %d decision records", c.counts[0], c.counts[1], c.counts[2])
	if c.counts[4] > 0 {
		waived = fmt.Sprintf(" (%d waived)", c.counts[4])
	}
	return what, waived
}

func lines(b []byte) []string { return strings.Split(string(b), "\n") }

// section returns the rows of the section under the line equal to title:
// from the first line that is not blank up to the next blank line, less
// the header's lines.
func section(t *testing.T, all []string, title string, header int) []string {
	t.Helper()
	i := slices.Index(all, title)
	if i < 0 {
		t.Fatalf("no %s section", title)
	}
	rest := all[i+1:]
	for len(rest) > 0 && rest[0] == "" {
		rest = rest[1:]
	}
	if j := slices.Index(rest, ""); j >= 0 {
		rest = rest[:j]
	}
	if len(rest) < header {
		t.Fatalf("section %s has no header", title)
	}
	return rest[header:]
}

func checkTable(t *testing.T, c reportWant, out []byte) {
	all := lines(out)
	what, waived := countLine(c)
	if want := fmt.Sprintf("%s; %d open findings%s", what, c.counts[3], waived); all[1] != want {
		t.Errorf("counts line %q, want %q", all[1], want)
	}
	if want := "by severity: " + c.severities; all[2] != want {
		t.Errorf("severity line %q, want %q", all[2], want)
	}
	backfills := section(t, all, "BACKFILLS", 1)
	if len(backfills) != len(c.backfills) {
		t.Errorf("%d backfill rows, want %d", len(backfills), len(c.backfills))
	}
	for _, want := range c.backfills {
		if !slices.ContainsFunc(backfills, func(l string) bool { return strings.HasPrefix(strings.Join(strings.Fields(l), " "), want+" ") }) {
			t.Errorf("no backfill row %q", want)
		}
	}
	var rows []string
	cells := map[string]bool{}
	for _, l := range section(t, all, "FINDINGS", 1) {
		f := strings.Fields(l)
		rows = append(rows, strings.Join(f[:3], " "))
		cells[f[1]+" "+f[2]+" "+f[5]] = true
	}
	sameFindings(t, c.findings, rows)
	for _, want := range c.located {
		if !cells[want] {
			t.Errorf("no finding row %q (rule, backfill, where)", want)
		}
	}
	for _, w := range c.waived {
		if !cells[w.rule+" "+w.backfill+" "+w.uri] {
			t.Errorf("waived %s on %s is not listed", w.rule, w.uri)
		}
	}
	section(t, all, "SOURCES", 1)
}

// checkNarrowTable renders the table for an 80-column terminal: every
// line fits, and every finding is still listed, its message on the lines
// under it.
func checkNarrowTable(t *testing.T, c reportWant, r *model.Report) {
	w, err := reports.New("table", reports.Options{Width: 80})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := w.Write(context.Background(), &b, r); err != nil {
		t.Fatal(err)
	}
	all := strings.Split(b.String(), "\n")
	for i, l := range all {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line %d is %d columns wide at width 80: %q", i+1, n, l)
		}
	}
	var rows []string
	for _, l := range section(t, all, "FINDINGS", 1) {
		if !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "(") { // not a message, not "(DUE left out…)"
			rows = append(rows, strings.Join(strings.Fields(l)[:3], " "))
		}
	}
	sameFindings(t, c.findings, rows)
}

func checkJSON(t *testing.T, c reportWant, out []byte) {
	var r model.Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	s := r.Summary
	if got := [5]int{s.Backfills, s.Artifacts, s.Records, s.Findings, s.Waived}; got != c.counts {
		t.Errorf("summary counts %v, want %v", got, c.counts)
	}
	var sev []string
	for _, name := range []string{"critical", "high", "medium", "low", "info"} {
		if n := s.BySeverity[name]; n > 0 {
			sev = append(sev, name+" "+strconv.Itoa(n))
		}
	}
	if got := strings.Join(sev, ", "); got != c.severities {
		t.Errorf("by_severity %s, want %s", got, c.severities)
	}
	open := map[string]string{}
	for _, b := range r.Backfills {
		open[b.Backfill.ID] = strconv.Itoa(b.Findings)
	}
	for _, want := range c.backfills {
		f := strings.Fields(want)
		if open[f[0]] != f[len(f)-1] {
			t.Errorf("backfill %s: %s open findings, want %s", f[0], open[f[0]], f[len(f)-1])
		}
	}
	if len(r.Backfills) != len(c.backfills) {
		t.Errorf("%d backfills, want %d", len(r.Backfills), len(c.backfills))
	}
	var rows []string
	located := map[string]bool{}
	for _, f := range r.Findings {
		sev := f.Severity.String()
		if f.Waiver != nil {
			sev = "waived"
			if !c.waivedBy(f.RuleID, f.ArtifactURI, f.Waiver.Reason) {
				t.Errorf("waived %s on %s for %q: no such waiver", f.RuleID, f.ArtifactURI, f.Waiver.Reason)
			}
		}
		rows = append(rows, sev+" "+f.RuleID+" "+orDash(f.BackfillID))
		if f.Location != nil {
			located[fmt.Sprintf("%s %s %s:%d", f.RuleID, orDash(f.BackfillID), f.Location.Path, f.Location.Line)] = true
		}
	}
	sameFindings(t, c.findings, rows)
	for _, want := range c.located {
		if !located[want] {
			t.Errorf("no finding located at %q", want)
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func checkMarkdown(t *testing.T, c reportWant, out []byte) {
	all := lines(out)
	what, waived := countLine(c)
	what = strings.Replace(what, ", 3 decision records", " and 3 decision records", 1)
	if want := fmt.Sprintf("As of 2026-11-30 00:00 UTC: **%d** open findings across %s%s.", c.counts[3], what, waived); all[2] != want {
		t.Errorf("counts line %q, want %q", all[2], want)
	}
	for _, s := range strings.Split(c.severities, ", ") {
		name, n, _ := strings.Cut(s, " ")
		if !slices.Contains(all, "| "+name+" | "+n+" |") {
			t.Errorf("no severity row for %s %s", name, n)
		}
	}
	backfills := section(t, all, "## Backfills", 2)
	if len(backfills) != len(c.backfills) {
		t.Errorf("%d backfill rows, want %d", len(backfills), len(c.backfills))
	}
	for _, want := range c.backfills {
		f := strings.Fields(want)
		row := "| " + f[0] + " | " + strings.Join(f[1:len(f)-1], " ") + " | " + f[len(f)-1] + " |"
		if !slices.ContainsFunc(backfills, func(l string) bool { return strings.HasPrefix(l, row) }) {
			t.Errorf("no backfill row %q", row)
		}
	}
	var rows []string
	cells := map[string]bool{}
	for _, l := range section(t, all, "## Findings", 2) {
		f := strings.Split(strings.Trim(l, "| "), " | ")
		sev, _, _ := strings.Cut(f[0], " ") // "waived (low)"
		rule, _, _ := strings.Cut(f[1], " ")
		rows = append(rows, sev+" "+rule+" "+orDash(f[2]))
		cells[rule+" "+orDash(f[2])+" "+strings.Trim(f[3], "`")] = true
	}
	sameFindings(t, c.findings, rows)
	for _, want := range c.located {
		if !cells[want] {
			t.Errorf("no finding row %q (rule, backfill, where)", want)
		}
	}
	if !slices.Contains(all, "### Remediation") {
		t.Error("no Remediation section")
	}
}

var (
	htmlBackfill = regexp.MustCompile(`<strong class="clamp">([^<]+)</strong>.*\n.*aria-label="lifecycle: ([^"]+)".*\n<td role="cell" data-label="Open">(\d+)</td>`)
	htmlFinding  = regexp.MustCompile(`data-sev="(\w+)"[^>]*data-rule="([^"]+)">\n.*\n.*\n<td role="cell"><bdi>([^<]*)</bdi>`)
)

func checkHTML(t *testing.T, c reportWant, out []byte) {
	s := string(out)
	what, waived := countLine(c)
	what = strings.ReplaceAll(what, ", ", " · ")
	if want := fmt.Sprintf("As of 2026-11-30 00:00 UTC · %s · <strong>%d</strong> open findings%s</p>", what, c.counts[3], waived); !strings.Contains(s, want) {
		t.Errorf("no counts line %q", want)
	}
	for _, h := range []string{"<h3>By severity</h3>", "<h3>By owner</h3>", "<h2>Backfills</h2>", `<h2 id="findings">Findings</h2>`, "<h2>Coverage</h2>"} {
		if !strings.Contains(s, h) {
			t.Errorf("no section %s", h)
		}
	}
	var backfills []string
	for _, m := range htmlBackfill.FindAllStringSubmatch(s, -1) {
		backfills = append(backfills, m[1]+" "+m[2]+" "+m[3])
	}
	var want []string
	for _, b := range c.backfills {
		f := strings.Fields(b)
		life := "not tracked"
		if done, of, ok := strings.Cut(f[1], "/"); ok {
			life = done + " of " + of + " steps reached"
		}
		want = append(want, f[0]+" "+life+" "+f[len(f)-1])
	}
	if !slices.Equal(backfills, want) {
		t.Errorf("backfill rows (id, lifecycle, open):\n%s\nwant:\n%s", strings.Join(backfills, "\n"), strings.Join(want, "\n"))
	}
	var rows []string
	for _, m := range htmlFinding.FindAllStringSubmatch(s, -1) {
		rows = append(rows, m[1]+" "+m[2]+" "+orDash(m[3]))
	}
	sameFindings(t, c.findings, rows)
	for _, w := range c.waived {
		if !strings.Contains(s, "aived: "+html.EscapeString(w.reason)) {
			t.Errorf("the waiver's reason %q is not shown", w.reason)
		}
	}
}

// sarifLog is the part of SARIF a code-scanning service reads.
type sarifLog struct {
	Runs []struct {
		Results []struct {
			RuleID    string `json:"ruleId"`
			Level     string `json:"level"`
			Locations []struct {
				Physical *struct {
					Artifact struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
				Logical []struct {
					Name string `json:"fullyQualifiedName"`
				} `json:"logicalLocations"`
			} `json:"locations"`
			Suppressions []struct {
				Justification string `json:"justification"`
			} `json:"suppressions"`
		} `json:"results"`
	} `json:"runs"`
}

// sarifLevel is the SARIF level of each severity; a waived finding is
// suppressed instead.
var sarifLevel = map[string]string{"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note", "waived": "suppressed"}

func checkSARIF(t *testing.T, c reportWant, out []byte) {
	var l sarifLog
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(l.Runs))
	}
	// SARIF has no backfill: count each rule at each level.
	want := map[string]int{}
	for _, f := range c.findings {
		p := strings.Fields(f)
		n, _ := strconv.Atoi(p[3])
		want[sarifLevel[p[0]]+" "+p[1]] += n
	}
	var wantRows []string
	for k, n := range want {
		wantRows = append(wantRows, k+" "+strconv.Itoa(n))
	}
	var rows []string
	files := map[string]int{}
	for _, r := range l.Runs[0].Results {
		level := r.Level
		if len(r.Suppressions) > 0 {
			level = "suppressed"
			var uri string
			if loc := r.Locations; len(loc) > 0 && len(loc[0].Logical) > 0 {
				uri = loc[0].Logical[0].Name
			}
			if !c.waivedBy(r.RuleID, uri, r.Suppressions[0].Justification) {
				t.Errorf("suppressed %s on %s for %q: no such waiver", r.RuleID, uri, r.Suppressions[0].Justification)
			}
		}
		rows = append(rows, level+" "+r.RuleID)
		if len(r.Locations) == 0 {
			t.Errorf("%s result has no location", r.RuleID)
		} else if p := r.Locations[0].Physical; p != nil {
			files[fmt.Sprintf("%s %s:%d", r.RuleID, p.Artifact.URI, p.Region.StartLine)]++
		}
	}
	sameFindings(t, wantRows, rows)
	// A finding on a file points at its line.
	wantFiles := map[string]int{}
	for _, w := range c.located {
		rule, rest, _ := strings.Cut(w, " ")
		_, at, _ := strings.Cut(rest, " ")
		wantFiles[rule+" "+at]++
	}
	for k, n := range wantFiles {
		if files[k] != n {
			t.Errorf("%d results at %q, want %d", files[k], k, n)
		}
		delete(files, k)
	}
	for k := range files {
		t.Errorf("unexpected result at %q", k)
	}
}
