package flagd

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// copyFixtures copies testdata/flags into a fresh directory laid out as a
// config directory: <dir>/flags/*.
func copyFixtures(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "flags"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", "flags", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "flags", n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func collect(t *testing.T, dir string, files ...string) *collectors.TestSink {
	t.Helper()
	sink, err := collectortest.Collect(t, newFlagd(t, dir, files...))
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return sink
}

// newFlagd is a source named flags reading files relative to dir.
func newFlagd(t *testing.T, dir string, files ...string) *Flagd {
	t.Helper()
	f := &Flagd{Files: files}
	if err := f.Init(collectors.Env{Source: "flags", Selector: correlate.MustSelector(), BaseDir: dir, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return f
}

func byName(arts []model.Artifact) map[string]model.Artifact {
	out := map[string]model.Artifact{}
	for _, a := range arts {
		out[a.Name] = a
	}
	return out
}

func TestTiedFlagsBecomeArtifacts(t *testing.T) {
	dir := copyFixtures(t, "replay.flagd.json", "ledger.flagd.yaml")
	sink := collect(t, dir, "flags/replay.flagd.json", "./flags/ledger.flagd.yaml")
	if len(sink.Errors) > 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	got := byName(sink.Artifacts)
	if _, ok := got["new-checkout"]; ok {
		t.Error("new-checkout names no backfill but was reported")
	}
	type want struct {
		id, how, scope, uri string
		state               model.State
		attrs               map[string]string
	}
	for name, w := range map[string]want{
		"bf-1234-replay-mode": {"bf-1234", "name", "flags/replay.flagd.json", "flagd://flags/flags/replay.flagd.json#bf-1234-replay-mode",
			model.StateEnabled, map[string]string{model.AttrPosition: "on", model.AttrReplayPosition: "on", model.AttrGuard: "true",
				"default_variant": "on", "variants": "off,on", "state": "ENABLED"}},
		// Its default variant is "off": disabled, though targeting may
		// turn it on for some.
		"suppress-refund-emails": {"BF-1234", "label", "flags/replay.flagd.json", "flagd://flags/flags/replay.flagd.json#suppress-refund-emails",
			model.StateDisabled, map[string]string{model.AttrPosition: "send", model.AttrReplayPosition: "suppress", "targeting": "true",
				"variants": "send,suppress"}},
		// DISABLED: off whatever its default variant holds.
		"ledger-batch-size": {"bf-3100", "label", "flags/replay.flagd.json", "flagd://flags/flags/replay.flagd.json#ledger-batch-size",
			model.StateDisabled, map[string]string{model.AttrPosition: "large", "state": "DISABLED"}},
		// Tied by the file's metadata; 1 is on, 0 and 0.0 are off, no
		// default variant is the code's default: off as far as the file says.
		"ledger-dual-write":      {"BF-3100", "label", "flags/ledger.flagd.yaml", "flagd://flags/flags/ledger.flagd.yaml#ledger-dual-write", model.StateEnabled, nil},
		"ledger-replay-throttle": {"BF-3100", "label", "flags/ledger.flagd.yaml", "", model.StateDisabled, nil},
		"ledger-code-default":    {"BF-3100", "label", "flags/ledger.flagd.yaml", "", model.StateDisabled, map[string]string{"default_variant": ""}},
	} {
		a, ok := got[name]
		if !ok {
			t.Errorf("%s: not reported", name)
			continue
		}
		if a.Kind != model.KindFeatureFlag || a.System != "flagd" || a.BackfillID != w.id || a.Correlation != w.how ||
			a.Scope != w.scope || a.State != w.state || (w.uri != "" && a.URI != w.uri) {
			t.Errorf("%s: got %s %s id=%s how=%s scope=%s state=%s uri=%s; want id=%s how=%s scope=%s state=%s uri=%s",
				name, a.Kind, a.System, a.BackfillID, a.Correlation, a.Scope, a.State, a.URI, w.id, w.how, w.scope, w.state, w.uri)
		}
		for k, v := range w.attrs {
			if a.Attr(k) != v {
				t.Errorf("%s: attribute %s = %q, want %q", name, k, a.Attr(k), v)
			}
		}
		if a.Attr(AttrFile) != filepath.Join(dir, strings.TrimPrefix(w.scope, "./")) {
			t.Errorf("%s: file = %q", name, a.Attr(AttrFile))
		}
	}
	if a := got["bf-1234-replay-mode"]; a.Owner != "payments@example.com" || a.Labels.Get("flagSetId") != "payments/prod" {
		t.Errorf("owner %q labels %v: want the flag's owner and the file's metadata", a.Owner, a.Labels)
	}
	if a := got["ledger-code-default"]; a.Attr(model.AttrPosition) != "" {
		t.Errorf("no default variant: position %q, want none", a.Attr(model.AttrPosition))
	}
}

// A flag that cannot be read is an error naming file, line and key; the
// other flags of the file are kept.
func TestBadFlagsAreErrorsAtTheirFile(t *testing.T) {
	dir := copyFixtures(t, "broken.flagd.yaml")
	sink := collect(t, dir, "flags/broken.flagd.yaml")
	var msgs []string
	for _, e := range sink.Errors {
		if e.Scope != "flags/broken.flagd.yaml" {
			t.Errorf("error at %q, want the file: %s", e.Scope, e.Error)
		}
		msgs = append(msgs, e.Error)
	}
	sort.Strings(msgs)
	want := []string{
		`flagd: flags/broken.flagd.yaml:9: flags.bf-4000-bad-state.state: "enabled"; expected ENABLED or DISABLED`,
		`flagd: flags/broken.flagd.yaml:15: flags.bf-4000-unknown-default.defaultVariant: "yes" is not one of the variants (on)`,
		`flagd: flags/broken.flagd.yaml:20: flags.bf-4000-nested-metadata.metadata.tags: expected a string, number or boolean, not a list`,
	}
	sort.Strings(want)
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	if got := byName(sink.Artifacts); len(got) != 1 || got["bf-4000-good"].State != model.StateEnabled {
		t.Errorf("artifacts %v: want only bf-4000-good, enabled", got)
	}
}

// A file that cannot be read or parsed is an error at that file; the
// other files are read.
func TestUnreadableFileIsAnErrorAtItsScope(t *testing.T) {
	dir := copyFixtures(t, "replay.flagd.json", "ledger.flagd.yaml")
	os.WriteFile(filepath.Join(dir, "flags", "syntax.json"), []byte("{\"flags\": {\n  \"bf-1\": [\n}"), 0o644)
	os.WriteFile(filepath.Join(dir, "flags", "list.yaml"), []byte("flags:\n  - key: bf-2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "flags", "deploy.yaml"), []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"), 0o644)
	sink := collect(t, dir, "flags/replay.flagd.json", "flags/missing.json", "flags/syntax.json", "flags/list.yaml", "flags/deploy.yaml", "flags/ledger.flagd.yaml")
	errs := map[string]string{}
	for _, e := range sink.Errors {
		errs[e.Scope] = e.Error
	}
	for scope, want := range map[string]string{
		"flags/missing.json": "flagd: flags/missing.json: no such file or directory",
		"flags/syntax.json":  "flagd: flags/syntax.json:3: did not find expected node content", // the } where a value belongs
		// The list form is read: its flag lacks a state.
		"flags/list.yaml": "flagd: flags/list.yaml:2: flags[0] (bf-2).state: missing; expected ENABLED or DISABLED",
		// Named in the config, a file holding no flags at all is an error.
		"flags/deploy.yaml": "flagd: flags/deploy.yaml: holds no flag definition, only 1 document without flags (apps/v1 Deployment web)",
	} {
		if errs[scope] != want {
			t.Errorf("error at %s = %q, want %q", scope, errs[scope], want)
		}
	}
	if len(sink.Errors) != 4 {
		t.Errorf("errors: %+v", sink.Errors)
	}
	for _, e := range sink.Errors {
		if strings.Contains(e.Error, dir) {
			t.Errorf("error holds the absolute path: %s", e.Error)
		}
	}
	if got := byName(sink.Artifacts); len(got) != 6 {
		t.Errorf("want the 6 tied flags of the good files, got %d", len(got))
	}
}

// Directories and globs read every definition file under them; a
// directory that cannot be listed is an error at the directory, which
// covers every file in it.
func TestDirectoriesAndGlobs(t *testing.T) {
	dir := copyFixtures(t, "replay.flagd.json", "ledger.flagd.yaml")
	os.WriteFile(filepath.Join(dir, "flags", "notes.txt"), []byte("not a flag file"), 0o644)
	sink := collect(t, dir, "flags")
	if len(sink.Errors) > 0 || len(sink.Artifacts) != 6 {
		t.Fatalf("directory: %d artifacts, errors %+v", len(sink.Artifacts), sink.Errors)
	}
	// The same file named twice is read once.
	sink = collect(t, dir, "flags/*.yaml", "flags/ledger.flagd.yaml")
	if len(sink.Errors) > 0 || len(sink.Artifacts) != 3 {
		t.Fatalf("glob: %d artifacts, errors %+v", len(sink.Artifacts), sink.Errors)
	}
	for _, a := range sink.Artifacts {
		if a.Scope != "flags/ledger.flagd.yaml" {
			t.Errorf("scope %q", a.Scope)
		}
	}
	if runtime.GOOS == "windows" || os.Getuid() == 0 {
		t.Skip("permissions do not stop this user from listing a directory")
	}
	if err := os.Chmod(filepath.Join(dir, "flags"), 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "flags"), 0o755) })
	// The directory is the source's only unit: its failure fails the source.
	for _, entry := range []string{"flags", "flags/*.json"} {
		sink, err := collectortest.Collect(t, newFlagd(t, dir, entry))
		if err == nil || len(sink.Errors) != 1 || sink.Errors[0].Scope != "flags" || len(sink.Artifacts) != 0 {
			t.Errorf("%s in an unlistable directory: %v, errors %+v, %d artifacts", entry, err, sink.Errors, len(sink.Artifacts))
		}
	}
}

func TestInitRefusesBadConfig(t *testing.T) {
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{nil, "files: missing"},
		{[]string{"a.json", " "}, "files[1]: empty path"},
		{[]string{"flags/[.json"}, `files[0]: "flags/[.json" is not a valid glob pattern`},
	} {
		err := (&Flagd{Files: tc.files}).Init(collectors.Env{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.files, err, tc.want)
		}
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	inst := collectortest.DecodeSample(t, "sample.yaml")
	f, ok := inst.Collector.(*Flagd)
	if !ok || len(f.Files) != 2 {
		t.Fatalf("sample decodes to %#v", inst.Collector)
	}
}
