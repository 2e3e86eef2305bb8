package collectors

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

type fakeCollector struct {
	Whole

	run func(Sink) error
}

func (f *fakeCollector) CollectUnit(_ context.Context, _ string, s Sink) error { return f.run(s) }

func TestRunRecordsCoverage(t *testing.T) {
	instances := []Instance{
		{Name: "ok", Type: "x", Collector: &fakeCollector{run: func(s Sink) error {
			s.AddArtifact(model.Artifact{URI: "b", Kind: model.KindTable})
			s.AddRead("", "tables", 1, 0)
			return nil
		}}},
		{Name: "partial", Type: "x", Collector: &fakeCollector{run: func(s Sink) error {
			s.AddArtifact(model.Artifact{URI: "a", Kind: model.KindTable})
			s.AddError("proj-2", errors.New("403"))
			return nil
		}}},
		{Name: "dead", Type: "x", Collector: &fakeCollector{run: func(Sink) error { return errors.New("connection refused") }}},
		{Name: "panics", Type: "x", Collector: &fakeCollector{run: func(Sink) error { panic("boom") }}},
	}
	est, err := Run(context.Background(), instances, 2, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]model.CoverageStatus{}
	for _, c := range est.Coverage {
		status[c.Source] = c.Status
	}
	want := map[string]model.CoverageStatus{"ok": "ok", "partial": "degraded", "dead": "failed", "panics": "failed"}
	for k, v := range want {
		if status[k] != v {
			t.Errorf("%s: %s, want %s", k, status[k], v)
		}
	}
	if len(est.Artifacts) != 2 || est.Artifacts[0].URI != "a" || est.Artifacts[0].Source != "partial" {
		t.Errorf("artifacts = %+v (sorted by URI, with their source)", est.Artifacts)
	}
}

type decoded struct {
	Whole

	Path  string        `mapstructure:"path"`
	Grace time.Duration `mapstructure:"grace"`
	Names []string      `mapstructure:"names"`
}

func (d *decoded) CollectUnit(_ context.Context, _ string, _ Sink) error { return nil }

func TestDecode(t *testing.T) {
	Register("decode-test", func() *decoded { return &decoded{Grace: time.Hour} }, "")
	in, err := Decode(map[string]any{"type": "decode-test", "name": "mine", "path": "p", "grace": "30d"}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	d := in.Collector.(*decoded)
	if in.Name != "mine" || d.Grace != 30*24*time.Hour || d.Path != "p" {
		t.Errorf("decoded %+v %+v", in, d)
	}
	in, _ = Decode(map[string]any{"type": "decode-test"}, Env{})
	if in.Name != "decode-test" || in.Collector.(*decoded).Grace != time.Hour {
		t.Errorf("defaults lost: %+v", in)
	}
	for _, tc := range []struct {
		entry map[string]any
		want  string
	}{
		{map[string]any{"type": "decode-test", "pth": "p"}, "pth"},
		{map[string]any{"type": "decode-test", "grace": "soon"}, "invalid duration"},
		{map[string]any{"type": "nope"}, `unknown collector "nope"`},
		{map[string]any{"name": "x"}, "type: missing"},
	} {
		if _, err := Decode(tc.entry, Env{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%v) = %v, want %q", tc.entry, err, tc.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice should panic")
		}
	}()
	Register("decode-test", func() Collector { return &decoded{} }, "")
}

// notingCollector answers with nothing and a note, as the prometheus
// collector does for a cluster without the PrometheusRule CRD.
type notingCollector struct {
	Whole
	notes []string
}

func (n *notingCollector) CollectUnit(_ context.Context, _ string, s Sink) error {
	s.AddRead("", "PrometheusRules", 0, 0)
	return nil
}
func (n *notingCollector) Notes() []string { return n.notes }

// A collector's notes reach its coverage, with configured secrets
// masked, and leave it answered.
func TestRunKeepsNotes(t *testing.T) {
	redact.Reset()
	t.Cleanup(redact.Reset)
	redact.Add("hunter2-secret")
	note := "cluster https://admin:hunter2-secret@k8s.example.com does not serve monitoring.coreos.com/v1 (no PrometheusRule CRD)"
	est, err := Run(context.Background(), []Instance{
		{Name: "rules", Type: "prometheus", Collector: &notingCollector{notes: []string{note}}},
		{Name: "quiet", Type: "x", Collector: &fakeCollector{run: func(Sink) error { return nil }}},
	}, 2, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]model.Coverage{}
	for _, c := range est.Coverage {
		byName[c.Source] = c
	}
	c := byName["rules"]
	if c.Status != model.CoverageOK || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "no PrometheusRule CRD") {
		t.Fatalf("coverage = %+v, want answered with the note", c)
	}
	if strings.Contains(c.Notes[0], "hunter2-secret") {
		t.Errorf("a note kept a credential: %q", c.Notes[0])
	}
	if n := byName["quiet"].Notes; n != nil {
		t.Errorf("a collector without notes got %q", n)
	}
}

func TestErrorsNameTheirUnitOnce(t *testing.T) {
	for _, c := range []struct{ msg, system, scope, want string }{
		{"inventory: inv.yaml: inv.yaml: open: no such file", "inventory", "inv.yaml", "open: no such file"},
		{"records: plans/x.yaml: skipped: not a regular file", "records", "plans/x.yaml", "skipped: not a regular file"},
		{"plans/x.yaml:4: key: unknown", "records", "plans/x.yaml", "plans/x.yaml:4: key: unknown"},
		{"inventory: connection refused", "inventory", "", "connection refused"},
		{"inv.yaml: ", "inventory", "inv.yaml", "inv.yaml: "},
	} {
		if got := unrepeated(c.msg, c.system, c.scope); got != c.want {
			t.Errorf("unrepeated(%q, %q) = %q, want %q", c.msg, c.scope, got, c.want)
		}
	}
}
