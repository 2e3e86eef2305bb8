package reports

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// manyFindings is a report of n findings, most with a backfill.
func manyFindings(n int) *model.Report {
	r := &model.Report{Version: model.ReportVersion, Tool: "bfaudit", Now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		Summary:   model.Summary{Findings: n, BySeverity: map[string]int{"high": n}, ByOwner: map[string]int{"alice": n}, Complete: true},
		Backfills: []model.BackfillReport{{Backfill: &model.Backfill{ID: "BF-1", Status: model.StatusReplayed}, Known: true, Findings: n}},
		Coverage:  []model.Coverage{}}
	for i := range n {
		r.Findings = append(r.Findings, model.Finding{RuleID: "BF003", RuleName: "lingering-elevated-grant", Title: "t",
			Severity: model.SeverityHigh, BackfillID: "BF-1", ArtifactURI: fmt.Sprintf("gcpiam://p/roles/editor/sa%d", i),
			Owner: "alice", Message: fmt.Sprintf("grant %d is still in force", i), Evidence: []string{"e"},
			Remediation: "revoke it", Fingerprint: fmt.Sprintf("%016x", i), Source: "gcpiam", Scope: "p"})
	}
	return r
}

// The Markdown and HTML reports list the first MaxRows findings and say how
// many more the JSON report holds; below the cap they list all.
func TestTemplateReportsCapFindings(t *testing.T) {
	for _, format := range []string{"markdown", "html"} {
		w, _ := New(format, Options{})
		var b bytes.Buffer
		if err := w.Write(context.Background(), &b, manyFindings(MaxRows+7)); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "7 more in the JSON report: this report lists the first 1000 findings") {
			t.Errorf("%s: no line counting the findings left out", format)
		}
		if !strings.Contains(out, fmt.Sprintf("sa%d", MaxRows-1)) || strings.Contains(out, fmt.Sprintf("sa%d", MaxRows)) {
			t.Errorf("%s: does not list exactly the first %d findings", format, MaxRows)
		}
		b.Reset()
		if err := w.Write(context.Background(), &b, manyFindings(MaxRows)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "more in the JSON report") || !strings.Contains(b.String(), fmt.Sprintf("sa%d", MaxRows-1)) {
			t.Errorf("%s: a report at the cap is not listed whole", format)
		}
	}
}

// With no width, the table's columns line up as text/tabwriter's would
// if it counted terminal cells: an East Asian wide rune takes two, a
// colour code none. Tabs and line breaks in a cell become spaces: they
// would break the columns.
func TestTableColumnsLineUp(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "BF-1234", "élan", "表", "gcpiam://p/roles/x/sa@p.iam.gserviceaccount.com", "-"}
	rows := make([][]string, 50)
	for i := range rows {
		for range 5 {
			rows[i] = append(rows[i], words[rnd.IntN(len(words))]+words[rnd.IntN(len(words))])
		}
	}
	cols := []column{{header: "A"}, {header: "B"}, {header: "C"}, {header: "D"}, {header: "E"}}
	var got bytes.Buffer
	p := &printer{w: bufio.NewWriter(&got)}
	p.grid(cols, len(rows), func(i int, cells []cell) {
		for j := range cells {
			cells[j].text = rows[i][j]
		}
		cells[0].color = "\x1b[31m"
	})
	p.w.Flush()
	// Where each column starts: after the widest cell above or below it.
	starts := make([]int, len(cols))
	for j := 1; j < len(cols); j++ {
		starts[j] = starts[j-1] + 1 + 2
		for _, r := range rows {
			starts[j] = max(starts[j], starts[j-1]+textWidth(r[j-1])+2)
		}
	}
	for i, line := range strings.Split(strings.TrimSuffix(ansi.ReplaceAllString(got.String(), ""), "\n"), "\n")[1:] {
		for j, s := range starts {
			prefix := cellWidth.Truncate(line, s, "")
			if textWidth(prefix) != s && rows[i][j] != "" {
				t.Fatalf("row %d: column %d does not start at %d:\n%s", i, j, s, line)
			}
			if rest := line[len(prefix):]; rows[i][j] != "" && !strings.HasPrefix(rest, rows[i][j]) {
				t.Fatalf("row %d: column %d is not at %d:\n%s", i, j, s, line)
			}
		}
	}

	got.Reset()
	p = &printer{w: bufio.NewWriter(&got)}
	p.grid([]column{{header: "A"}, {header: "B"}}, 2, func(i int, cells []cell) {
		cells[0].text, cells[1].text = []string{"x\ty", "long"}[i], "m\nn"
	})
	p.w.Flush()
	if want := "A     B\nx y   m n\nlong  m n\n"; got.String() != want {
		t.Errorf("cells with tabs and newlines: got %q, want %q", got.String(), want)
	}
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Writers stream: no format's output is held in memory (the JSON writer
// used to hold it twice, marshalled then re-indented, and allocated 2.5
// times what it wrote), so what a writer allocates per finding stays small
// and does not grow with the report; the Markdown and HTML reports, which
// list MaxRows findings, allocate no more for more findings. The bounds
// are about twice what the writers allocate today.
func TestWritersStream(t *testing.T) {
	if raceDetector {
		t.Skip("allocation bounds hold without -race only (the race detector moves values to the heap); make bench and go test ./reports check them")
	}
	perFinding := map[string]uint64{"json": 150, "sarif": 30, "table": 20}
	alloc := map[string][]uint64{}
	sizes := []int{20_000, 40_000}
	for _, n := range sizes {
		r := manyFindings(n)
		for _, format := range Formats() {
			w, _ := New(format, Options{})
			var out countingWriter
			a := allocated(func() {
				if err := w.Write(context.Background(), &out, r); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%s, %d findings: wrote %d bytes, allocated %d (%d a finding)", format, n, out, a, a/uint64(n))
			alloc[format] = append(alloc[format], a)
			if bound, ok := perFinding[format]; ok && a/uint64(n) > bound {
				t.Errorf("%s, %d findings: allocated %d bytes a finding, bound %d", format, n, a/uint64(n), bound)
			}
		}
	}
	for _, format := range []string{"markdown", "html"} {
		if a := alloc[format]; a[1] > a[0]+a[0]/10 {
			t.Errorf("%s: allocated %d bytes for %d findings and %d for %d: the finding table is not capped", format, a[0], sizes[0], a[1], sizes[1])
		}
	}
}

type countingWriter int

func (c *countingWriter) Write(b []byte) (int, error) {
	*c += countingWriter(len(b))
	return len(b), nil
}
