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
