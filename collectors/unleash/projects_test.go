package unleash

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// hiddenExport is a real Unleash 7.5.1 (open-source edition) whose
// database holds a second project, payments: its project listing names
// only default, its flag search finds payments' flags (testdata/README.md).
const hiddenExport = "testdata/export-hidden-project"

func uriIn(project, name string) string {
	return "unleash://unl/projects/" + project + "/features/" + name
}

// checkHiddenProject checks the flags of hiddenExport: those of payments
// are found although the listing does not name it, each under its own
// project's unit, and the coverage says which projects were read.
func checkHiddenProject(t *testing.T, sink *collectors.TestSink, arts []model.Artifact, notes []string) {
	t.Helper()
	by := map[string]model.Artifact{}
	for _, a := range arts {
		by[a.URI] = a
	}
	if len(arts) != 4 || len(by) != 4 {
		t.Errorf("%d flags reported, want the 4 tied to a backfill in default and payments: %+v", len(arts), arts)
	}
	guard, ok := by[uriIn("payments", "refund-replay-guard")]
	if !ok || guard.Scope != "payments/refund-replay-guard" || guard.BackfillID != "BF-2041" || guard.Correlation != "label" ||
		guard.State != model.StateEnabled || guard.Attr(model.AttrProduction) != "true" || guard.Attr(model.AttrGuard) != "true" ||
		guard.Attr(model.AttrProject) != "payments" || guard.Attr(AttrStrategies) != "flexibleRollout" {
		t.Errorf("payments' guard flag, on in production: %+v", guard)
	}
	if a, ok := by[uriIn("payments", "payments-shadow-read")]; !ok || a.State != model.StateDisabled || a.BackfillID != "BF-2041" || a.Correlation != "description" {
		t.Errorf("payments' flag tied by its description: %+v", a)
	}
	if a, ok := by[uriIn("payments", "bf-7777-payments-replay")]; !ok || a.State != model.StateDeleted || a.Attr(model.AttrArchived) != "true" {
		t.Errorf("payments' archived flag: %+v", a)
	}
	if a, ok := by[uriIn("default", "bf-2041-ledger-dual-write")]; !ok || a.State != model.StateEnabled || a.Scope != "default/bf-2041-ledger-dual-write" {
		t.Errorf("default's flag: %+v", a)
	}
	for scope, want := range map[string]int{"default": 2, "payments": 4} {
		if n, partial := readWithin(sink, scope, "flags"); n != want || partial != 0 {
			t.Errorf("project %s read %d flags (%d in part), want %d", scope, n, partial, want)
		}
	}
	if n, _ := sink.Read("", "projects"); n != 2 {
		t.Errorf("%d projects read, want 2", n)
	}
	joined := strings.Join(notes, "\n")
	if !strings.Contains(joined, "projects read: default (2 flags), payments (4 flags; not in the project listing, found through the flag search)") {
		t.Errorf("notes %q, want one naming the projects read", notes)
	}
}

// readWithin adds up the reads of kind what at scope and the units below.
func readWithin(sink *collectors.TestSink, scope, what string) (n, partial int) {
	for _, r := range sink.Reads {
		if r.What == what && model.ScopeWithin(r.Scope, scope) {
			n += r.Read
			partial += r.Partial
		}
	}
	return n, partial
}

// The open-source edition lists only its default project; flags of
// another project are found through the flag search across projects and
// read as that project's unit.
func TestProjectTheListingLacks(t *testing.T) {
	f := newFakeOf(t, hiddenExport)
	c := newCollector(t, f.URL())
	sink, err := collectortest.Collect(t, c)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	checkHiddenProject(t, sink, sink.Artifacts, c.Notes())
	discovered := 0
	for _, r := range f.requests {
		if strings.Contains(r, "project=IS_NONE_OF%3Adefault&") {
			discovered++
		}
	}
	if discovered != 2 {
		t.Errorf("%d searches for projects the listing lacks, want 2 (live and archived): %v", discovered, f.requests)
	}
}

// An export saved from such a server keeps payments' answers in a folder
// projects.json does not name: it is read too.
func TestExportDirProjectTheListingLacks(t *testing.T) {
	u := New()
	u.ExportDir = hiddenExport
	if err := u.Init(testEnv("unl")); err != nil {
		t.Fatal(err)
	}
	sink, err := collectortest.Collect(t, u)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	checkHiddenProject(t, sink, sink.Artifacts, u.Notes())
}

// projects: may name a project the listing does not show: the server is
// asked whether it holds it, and it is read. One it does not hold is an
// error at that project's unit; the others are read.
func TestProjectsNamedButNotListed(t *testing.T) {
	f := newFakeOf(t, hiddenExport)
	c := newCollector(t, f.URL())
	c.Projects = []string{"default", "payments", "ghost"}
	sink, err := collectortest.Collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "ghost" || !strings.Contains(sink.Errors[0].Error, "no such project") {
		t.Errorf("errors %+v, want project ghost alone failed, as no such project", sink.Errors)
	}
	if sink.Artifact(uriIn("payments", "refund-replay-guard")) == nil || len(sink.Artifacts) != 4 {
		t.Errorf("flags of default and payments: %+v", sink.Artifacts)
	}
	if notes := strings.Join(c.Notes(), "\n"); !strings.Contains(notes, "payments (4 flags; not in the project listing, named in projects)") {
		t.Errorf("notes %q", notes)
	}
	for _, r := range f.requests {
		if strings.Contains(r, "IS_NONE_OF") {
			t.Errorf("projects: names what to read, yet the search for others ran: %s", r)
		}
	}

	// A project whose overview does not answer is an error there too.
	f.set("/api/admin/projects/payments/overview", status(503))
	c.Projects = []string{"payments", "default"}
	sink = collectortest.CollectBroken(t, c, "payments", "HTTP 503")
	if sink.Artifact(uriIn("default", "bf-2041-ledger-dual-write")) == nil || sink.Artifact(uriIn("payments", "refund-replay-guard")) != nil {
		t.Errorf("want default read and payments not: %+v", sink.Artifacts)
	}
}

// A failed search for the projects the listing lacks leaves every project
// unanswered (one it would have found cannot be said empty), and the
// listed ones are still read.
func TestSearchForProjectsFails(t *testing.T) {
	for _, key := range []string{"/api/admin/search/features#discover", "/api/admin/search/features#discover#archived"} {
		t.Run(key, func(t *testing.T) {
			f := newFakeOf(t, hiddenExport)
			f.set(key, status(500))
			sink := collectortest.CollectBroken(t, newCollector(t, f.URL()), "", "find the projects the project listing lacks")
			if len(sink.Errors) != 1 || sink.Errors[0].Scope != "" {
				t.Errorf("errors %+v, want one at the whole source", sink.Errors)
			}
			if sink.Artifact(uriIn("default", "bf-2041-ledger-dual-write")) == nil || sink.Artifact(uriIn("payments", "refund-replay-guard")) != nil {
				t.Errorf("want default's flags reported and payments unread: %+v", sink.Artifacts)
			}
		})
	}
}

// A listing of many projects does not fit a query filter: the search
// across projects then runs unfiltered, and still finds payments.
func TestSearchForProjectsUnfiltered(t *testing.T) {
	f := newFakeOf(t, hiddenExport)
	var projects []any
	for i := range 300 {
		projects = append(projects, map[string]any{"id": fmt.Sprintf("warehouse-team-project-%03d", i)})
	}
	f.setJSON("projects.json", map[string]any{"projects": append(projects, map[string]any{"id": "default"})})
	sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	if sink.Artifact(uriIn("payments", "refund-replay-guard")) == nil || len(sink.Artifacts) != 4 {
		t.Errorf("flags: %+v", sink.Artifacts)
	}
	if n, _ := sink.Read("", "projects"); n != 302 {
		t.Errorf("%d projects read, want 302", n)
	}
	for _, r := range f.requests {
		if strings.Contains(r, "IS_NONE_OF") {
			t.Errorf("a filter of %d projects was sent: %.200s", len(projects), r)
		}
	}
}

// The units are the projects: those named in projects (each once, in
// their order, whether the listing holds them or not), else the listed
// ones and those the search across projects finds; an Unleash without a
// project is read whole. A named project the server does not hold is an
// error at its own unit, never one left unread in silence.
func TestUnitsAreTheProjects(t *testing.T) {
	f := newFakeOf(t, hiddenExport)
	c := newCollector(t, f.URL())
	if units, err := c.Units(t.Context()); err != nil || strings.Join(units, " ") != "default payments" {
		t.Errorf("units %q (%v), want default and payments, which the listing lacks", units, err)
	}
	c.Projects = []string{"ghost", "default", "ghost"}
	if units, err := c.Units(t.Context()); err != nil || strings.Join(units, " ") != "ghost default" {
		t.Errorf("units %q (%v), want the projects named", units, err)
	}
	f.set("/api/admin/projects/ghost", status(404))
	collectortest.CollectBroken(t, c, "ghost", "not in the project listing")

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "projects.json"), []byte(`{"projects": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c = New()
	c.ExportDir = dir
	if err := c.Init(testEnv("unl")); err != nil {
		t.Fatal(err)
	}
	if units, err := c.Units(t.Context()); err != nil || len(units) != 1 || units[0] != "" {
		t.Errorf("no project: units %q (%v), want the whole source", units, err)
	}
	sink, err := collectortest.Collect(t, c)
	if err != nil || len(sink.Errors) > 0 || !strings.Contains(strings.Join(c.Notes(), "\n"), "projects read: none") {
		t.Errorf("no project: %v %+v, notes %q; want it read, empty", err, sink.Errors, c.Notes())
	}
}
