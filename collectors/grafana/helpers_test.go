package grafana

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

func decode(entry map[string]any) (collectors.Instance, error) {
	return collectors.Decode(entry, collectors.Env{})
}

func itoa(i int) string { return strconv.Itoa(i) }

type nopSink struct{}

func (nopSink) AddBackfill(model.Backfill)       {}
func (nopSink) AddArtifact(model.Artifact)       {}
func (nopSink) AddRecord(model.DecisionRecord)   {}
func (nopSink) AddEdge(model.Edge)               {}
func (nopSink) AddBuild(model.Build)             {}
func (nopSink) AddError(string, error)           {}
func (nopSink) AddRead(string, string, int, int) {}

func testSelector() *correlate.Selector { return correlate.MustSelector() }

// testEnv is what the audit hands a source named grafana.
func testEnv() collectors.Env {
	return collectors.Env{Source: "grafana", Selector: testSelector(), Now: time.Now}
}

// writeFile writes a file under dir, making its directories.
func writeFile(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
