package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/audit"
	_ "github.com/bfaudit/bfaudit/collectors/all" // the quickstart's sources
	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
)

// The golden files were written by bfaudit before the report writers,
// the estate decoder and the rule engine were made to stream (issue 14),
// so these tests hold the rewrite to byte-identical reports. -update
// rewrites them from the current code, for a change meant to alter a
// report: review the diff before committing it.
var update = flag.Bool("update", false, "rewrite the golden reports from the current code")

var formats = []string{"table", "json", "markdown", "html", "sarif"}

// auditAs runs what `bfaudit audit [--config cfgPath] [--from estPath]
// --now 2026-11-30` does between loading the config and writing the
// reports (no history store, no sink).
func auditAs(t testing.TB, cfgPath, estPath string) (*model.Report, *config.Config) {
	t.Helper()
	cfg, err := config.Load(config.NewViper(), cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	plan := audit.Plan{Instances: cfg.Instances, Concurrency: cfg.Concurrency, Selector: cfg.Selector,
		Engine: cfg.Engine, Now: Now, Due: cfg.DuePolicy, Teams: cfg.Teams}
	if estPath != "" {
		if plan.Estate, err = audit.LoadEstate(estPath); err != nil {
			t.Fatal(err)
		}
	}
	result, errs := audit.Run(context.Background(), context.Background(), plan)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return result.Report, cfg
}

func render(t testing.TB, format string, r *model.Report, cfg *config.Config) []byte {
	t.Helper()
	w, err := reports.New(format, reports.Options{Templates: cfg.Report.Templates})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := w.Write(context.Background(), &buf, r); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return buf.Bytes()
}

// saveEstate writes the generated estate of this size to a file, as
// `go run ./bench/gen` does.
func saveEstate(t testing.TB, artifacts, backfills int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "estate.json")
	if err := audit.SaveEstate(path, Estate(artifacts, backfills)); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGolden compares every format of the quickstart's audit with the
// reports kept in testdata/golden, byte for byte: one golden a format.
// Other audits are held to what they mean (meaning_test.go).
func TestGolden(t *testing.T) {
	r, cfg := auditAs(t, "../examples/quickstart/bfaudit.yaml", "")
	for _, f := range formats {
		got := render(t, f, r, cfg)
		path := filepath.Join("testdata", "golden", "quickstart."+f)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s report differs from %s:\n%s", f, path, firstDiff(got, want))
		}
	}
}

// firstDiff shows the first line where two reports part.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "(same lines, different bytes)"
}

// TestGoldenBench compares the JSON, SARIF and table reports of the bench
// estate (100,000 artifacts, 5,000 backfills) with the digests of the
// reports bfaudit wrote before issue 14. Markdown and HTML are left out:
// they now stop their finding tables at reports.MaxRows. It takes a few
// seconds, so it is skipped with -short and under the race detector
// (bench/run.sh runs it).
func TestGoldenBench(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("audits 100,000 artifacts: run without -short and -race (bench/run.sh does)")
	}
	want := map[string]string{}
	b, err := os.ReadFile("testdata/golden/bench100k.sha256")
	if err != nil && !*update {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, format, _ := strings.Cut(line, "  ")
		want[format] = sum
	}
	r, cfg := auditAs(t, "", saveEstate(t, nArtifacts, nBackfills))
	var sums strings.Builder
	for _, f := range []string{"json", "sarif", "table"} {
		h := sha256.Sum256(render(t, f, r, cfg))
		got := hex.EncodeToString(h[:])
		sums.WriteString(got + "  " + f + "\n")
		if got != want[f] && !*update {
			t.Errorf("%s report of the bench estate: sha256 %s, want %s", f, got, want[f])
		}
	}
	if *update {
		if err := os.WriteFile("testdata/golden/bench100k.sha256", []byte(sums.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
