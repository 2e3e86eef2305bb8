package audit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

const validEstate = `{"version": 1, "backfills": [{"id": "BF-1"}], "artifacts": [{"kind": "table", "uri": "bq://p/d/t"}], "records": [], "coverage": [{"source": "wh", "status": "ok"}]}`

func writeEstate(t testing.TB, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "estate.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// An estate with nothing in it used to load as an empty estate, and an
// audit of it resolves every finding in history.
func TestLoadEstateRefusesEmptyAnswers(t *testing.T) {
	if model.EstateVersion != 1 {
		t.Skip("fixtures are version 1")
	}
	tests := []struct{ name, body, want string }{
		{"zero bytes", "", "the file is empty"},
		{"whitespace", " \n\t\n", "the file is empty"},
		{"null", "null", "version: got 0"},
		{"null artifacts", strings.Replace(validEstate, `[{"kind": "table", "uri": "bq://p/d/t"}]`, "null", 1), "artifacts: null or missing"},
		{"null records", strings.Replace(validEstate, `"records": []`, `"records": null`, 1), "records: null or missing"},
		{"missing coverage", strings.Replace(validEstate, `, "coverage": [{"source": "wh", "status": "ok"}]`, "", 1), "coverage: null or missing"},
		{"null artifact entry", strings.Replace(validEstate, `[{"kind": "table", "uri": "bq://p/d/t"}]`, "[null]", 1), "artifacts[0]: needs a uri"},
		{"null backfill entry", strings.Replace(validEstate, `[{"id": "BF-1"}]`, "[null]", 1), "backfills[0]: needs an id"},
		{"record without id", strings.Replace(validEstate, `"records": []`, `"records": [{}]`, 1), "records[0]: needs a backfill_id"},
		{"coverage without source", strings.Replace(validEstate, `{"source": "wh", "status": "ok"}`, "{}", 1), "coverage[0]: needs a source"},
		{"syntax", "{\n\"version\": 1,\n]", ":3: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeEstate(t, tt.body)
			_, err := LoadEstate(p)
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want the file and %q", err, tt.want)
			}
		})
	}
	if _, err := LoadEstate(writeEstate(t, validEstate)); err != nil {
		t.Errorf("valid estate: %v", err)
	}
}

// Empty lists are saved as [], so what collect --out writes always loads.
func TestSaveEstateEmptyListsRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "estate.json")
	est := &model.Estate{Version: model.EstateVersion, Coverage: []model.Coverage{{Source: "wh", Status: model.CoverageOK}}}
	if err := SaveEstate(p, est); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if strings.Contains(string(b), "null") {
		t.Errorf("saved estate holds null: %s", b)
	}
	got, err := LoadEstate(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Artifacts)+len(got.Backfills)+len(got.Records) != 0 || len(got.Coverage) != 1 {
		t.Errorf("round trip: %+v", got)
	}
	if est.Artifacts != nil {
		t.Error("SaveEstate changed its argument")
	}
}

func TestLoadEstateNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "estate.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadEstate(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("LoadEstate blocked on a named pipe")
	}
	if _, err := LoadEstate(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "none.json: file not found") {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzLoadEstate: no panic; an error names the file; what loads has every
// list present and every entry identified.
func FuzzLoadEstate(f *testing.F) {
	for _, s := range []string{
		validEstate, "", "null", "[]", "{}", `{"version": 1}`,
		`{"version": 1, "backfills": [], "artifacts": [], "records": [], "coverage": []}`,
		`{"version": 1, "backfills": null, "artifacts": [], "records": [], "coverage": []}`,
		`{"version": 1, "backfills": [], "artifacts": [{"kind": "nope", "uri": "x"}], "records": [], "coverage": []}`,
		`{"version": 1, "backfills": [], "artifacts": [], "records": [], "coverage": [{"source": "s", "errors": [{"scope": "a/b", "error": "x"}]}]}`,
		"{\"version\": 1,\n\"artifacts\": [\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	p := filepath.Join(dir, "estate.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		est, err := LoadEstate(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if est.Artifacts == nil || est.Backfills == nil || est.Records == nil || est.Coverage == nil {
			t.Fatalf("loaded an estate with a nil list: %+v", est)
		}
	})
}
