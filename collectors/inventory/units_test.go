package inventory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

const warehouse = `artifacts:
  - kind: table
    scope: shop-analytics
    uri: bigquery://shop-analytics/revenue/bf_1234_refunds_tmp
    labels: {backfill_id: bf_1234}
    state: active
  - kind: grant
    uri: gcpiam://shop-analytics/bindings/editor
    backfill_id: BF-1234
`

func collectDir(t *testing.T, inv *Inventory) *collectors.TestSink {
	t.Helper()
	sink, err := collectErr(t, inv)
	if err != nil {
		t.Fatal(err)
	}
	return sink
}

// collectErr reads inv, failing the test if it does not return.
func collectErr(t *testing.T, inv *Inventory) (*collectors.TestSink, error) {
	t.Helper()
	sink := collectors.NewTestSink()
	done := make(chan error, 1)
	go func() { done <- collectors.Collect(context.Background(), inv, sink) }()
	select {
	case err := <-done:
		return sink, err
	case <-time.After(20 * time.Second):
		t.Fatal("Collect did not return within 20s")
		return nil, nil
	}
}

// inDir initialises inv with dir as the config file's folder.
func inDir(t *testing.T, inv *Inventory, dir string) *Inventory {
	t.Helper()
	if err := inv.Init(collectors.Env{Source: "inventory", BaseDir: dir, Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return inv
}

func coverage(sink *collectors.TestSink) model.Coverage {
	c := model.Coverage{Status: model.CoverageOK, Errors: sink.Errors}
	if len(c.Errors) > 0 {
		c.Status = model.CoverageDegraded
	}
	return c
}

// Issue 11, reproductions 1 and 3: artifacts carry their file as Scope,
// so an error at that file covers exactly them. Before, they carried the
// project they declared and the error the file path: Answered never
// matched, and a broken file resolved its findings and closed issues.
func TestArtifactsCarryTheirFileAsScope(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("inventory/warehouse.yaml", warehouse)
	write("inventory/alerts.yaml", "artifacts:\n  - {kind: alert, uri: 'mon://1', scope: team-a}\n")
	inv := inDir(t, &Inventory{Files: []string{"./inventory/warehouse.yaml", "inventory//alerts.yaml"}}, dir)
	healthy := collectDir(t, inv)
	if len(healthy.Errors) != 0 || len(healthy.Artifacts) != 3 {
		t.Fatalf("healthy run: %d artifacts, errors %+v", len(healthy.Artifacts), healthy.Errors)
	}
	scopes := map[string]string{}
	for _, a := range healthy.Artifacts {
		scopes[a.URI] = a.Scope
	}
	want := map[string]string{
		"bigquery://shop-analytics/revenue/bf_1234_refunds_tmp": "inventory/warehouse.yaml",
		"gcpiam://shop-analytics/bindings/editor":               "inventory/warehouse.yaml",
		"mon://1": "inventory/alerts.yaml",
	}
	for uri, scope := range want {
		if scopes[uri] != scope {
			t.Errorf("%s: scope %q, want its file %q", uri, scopes[uri], scope)
		}
	}
	if a := healthy.Artifact("mon://1"); a.Attr(AttrDeclaredScope) != "team-a" {
		t.Errorf("declared scope lost: %v", a.Attributes)
	}

	for name, broken := range map[string]string{
		"unparseable": "artifacts:\n  - kind: table\n    uri: [unclosed",
		"zero bytes":  "",
		"null":        "null\n",
		"blank":       "  \n",
		"comments":    "# emptied by a script\n",
		"no list":     "artifacts:\n",
	} {
		t.Run(name, func(t *testing.T) {
			write("inventory/warehouse.yaml", broken)
			sink := collectDir(t, inv)
			cov := coverage(sink)
			for uri, scope := range want {
				if got := cov.Answered(scope); got == (scope == "inventory/warehouse.yaml") {
					t.Errorf("%s (scope %s): answered = %v with warehouse.yaml %s; errors %+v", uri, scope, got, name, sink.Errors)
				}
			}
			if len(sink.Errors) != 1 || !strings.Contains(sink.Errors[0].Error, "inventory/warehouse.yaml") {
				t.Errorf("errors %+v, want one naming the file", sink.Errors)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		os.Remove(filepath.Join(dir, "inventory/warehouse.yaml"))
		sink := collectDir(t, inv)
		if len(sink.Errors) != 1 || sink.Errors[0].Scope != "inventory/warehouse.yaml" || strings.Contains(sink.Errors[0].Error, dir) {
			t.Errorf("errors %+v, want one at inventory/warehouse.yaml without the absolute path", sink.Errors)
		}
		if coverage(sink).Answered("inventory/warehouse.yaml") {
			t.Error("missing file answered")
		}
	})
	t.Run("explicit empty list answers", func(t *testing.T) {
		write("inventory/warehouse.yaml", "artifacts: []\n")
		sink := collectDir(t, inv)
		if len(sink.Errors) != 0 || !coverage(sink).Answered("inventory/warehouse.yaml") {
			t.Errorf("`artifacts: []` is an answer (none left): %+v", sink.Errors)
		}
	})
}

// Issue 12 point 8: anchors defined in one entry and used in another
// failed with "unknown anchor", because entries were re-marshalled one by
// one. The document is decoded once now.
func TestAnchorsAcrossEntries(t *testing.T) {
	data := `defaults: &table {kind: table, system: bigquery, state: active}
artifacts:
  - <<: *table
    uri: bigquery://p/d/bf_1_a
    labels: &bf1 {backfill_id: bf-1, team: data}
  - <<: *table
    uri: bigquery://p/d/bf_1_b
    labels: *bf1
    scope: p
  - &flag {kind: feature_flag, uri: 'flags://x', attributes: {temporary: "true"}}
`
	arts, errs := Parse("inv.yaml", []byte(data), "")
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(arts) != 3 {
		t.Fatalf("got %d artifacts, want 3", len(arts))
	}
	for _, a := range arts[:2] {
		if a.Kind != model.KindTable || a.System != "bigquery" || a.State != model.StateActive || a.Labels.Get("backfill_id") != "bf-1" {
			t.Errorf("anchored fields not applied: %+v", a)
		}
	}
	if arts[1].Attr(AttrDeclaredScope) != "p" || arts[0].Attr(AttrDeclaredScope) != "" {
		t.Errorf("shared maps leaked between entries: %v / %v", arts[0].Attributes, arts[1].Attributes)
	}

	// A broken anchor refuses every entry that uses it, each by its index.
	bad := "artifacts:\n  - &a {kind: table, uri: 't://1', colour: red}\n  - *a\n  - {kind: alert, uri: 'm://1'}\n"
	arts, errs = Parse("inv.yaml", []byte(bad), "")
	if len(arts) != 1 || len(errs) != 2 || !strings.Contains(errs[1].Error(), "artifacts[1].colour") {
		t.Errorf("arts %v errs %v", arts, errs)
	}
}

// A named pipe or a symlink to /dev/zero configured as an inventory file
// is an error at that file, not a hang or an out-of-memory crash.
func TestOddFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml"))
	// Neither file answered: the source fails, each file's error at it.
	sink, err := collectErr(t, inDir(t, &Inventory{Files: []string{"pipe.json", "zero.yaml"}}, dir))
	if err == nil || !strings.HasPrefix(err.Error(), "no unit answered (pipe.json, zero.yaml): ") {
		t.Errorf("source error %v, want no unit answered", err)
	}
	if len(sink.Errors) != 2 {
		t.Fatalf("errors %+v", sink.Errors)
	}
	for i, unit := range []string{"pipe.json", "zero.yaml"} {
		if e := sink.Errors[i]; e.Scope != unit || !strings.Contains(e.Error, "not a regular file") {
			t.Errorf("error %d = %+v, want one at %s", i, e, unit)
		}
	}
}

// A key defined twice outside any entry makes the whole file an error:
// the decoder's list and the parser's list could differ.
func TestDuplicateTopLevelKey(t *testing.T) {
	data := "artifacts:\n  - {kind: alert, uri: 'm://1'}\nartifacts:\n  - {kind: alert, uri: 'm://2'}\n  - {kind: alert, uri: 'm://3'}\n"
	arts, errs := Parse("inv.yaml", []byte(data), "")
	if len(arts) != 0 || len(errs) != 1 || errs[0].Error() != `inv.yaml:3: mapping key "artifacts" already defined at line 1` {
		t.Errorf("arts %v errs %v", arts, errs)
	}
}

// The units are the configured files, spelt as their artifacts' Scope.
func TestUnitsAreTheFiles(t *testing.T) {
	inv := inDir(t, &Inventory{Files: []string{"./inventory/warehouse.yaml", "inventory//alerts.yaml", "/abs/x.json"}}, t.TempDir())
	units, err := inv.Units(context.Background())
	if err != nil || strings.Join(units, " ") != "inventory/warehouse.yaml inventory/alerts.yaml /abs/x.json" {
		t.Errorf("units %q, %v", units, err)
	}
}
