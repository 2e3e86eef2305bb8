package unleash

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

func uri(name string) string { return "unleash://unl/projects/default/features/" + name }

// The answers of a real Unleash 7.5.1 (testdata/export), read as a user
// would see them in the estate.
func TestFlagsOfARealAnswer(t *testing.T) {
	f := newFake(t)
	sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	checkRealFlags(t, sink.Artifacts, f.URL())
}

// checkRealFlags checks what testdata/export holds (testdata/README.md);
// api is the server's address, "" for an export.
func checkRealFlags(t *testing.T, arts []model.Artifact, api string) {
	t.Helper()
	by := map[string]model.Artifact{}
	for _, a := range arts {
		by[a.URI] = a
	}
	if len(arts) != 5 || len(by) != 5 {
		t.Fatalf("%d flags reported, want the 5 tied to a backfill (not checkout-v2): %+v", len(arts), arts)
	}
	if _, ok := by[uri("checkout-v2")]; ok {
		t.Error("checkout-v2, tied to no backfill, was reported")
	}
	guard := by[uri("bf-1234-replay-guard")]
	want := map[string]string{
		model.AttrEnabledIn: "production", model.AttrProduction: "true", model.AttrPosition: "enabled", model.AttrGuard: "true",
		model.AttrReplayPosition: "disabled", model.AttrProject: "default", AttrFlagType: "kill-switch", AttrStale: "false",
		AttrStrategies: "flexibleRollout", AttrDescription: "guard for BF-1234", model.AttrArchived: "",
		model.AttrAPIURL: api, model.AttrURL: "",
	}
	if api != "" {
		want[model.AttrURL] = api + "/projects/default/features/bf-1234-replay-guard"
	}
	for k, v := range want {
		if got := guard.Attr(k); got != v {
			t.Errorf("guard flag %s = %q, want %q", k, got, v)
		}
	}
	seen := time.Date(2026, 12, 1, 21, 26, 23, 40e6, time.UTC)
	if guard.Kind != model.KindFeatureFlag || guard.System != "unleash" || guard.State != model.StateEnabled || guard.BackfillID != "BF-1234" ||
		guard.Correlation != "label" || guard.Scope != "default/bf-1234-replay-guard" || guard.Name != "bf-1234-replay-guard" ||
		!guard.LastUsedAt.Time().Equal(seen) || guard.CreatedAt.IsZero() || guard.Labels.Get("backfill") != "BF-1234" {
		t.Errorf("guard flag: %+v", guard)
	}
	dual := by[uri("bf_1234_dual_write")]
	if dual.State != model.StateEnabled || dual.BackfillID != "bf_1234" || dual.Correlation != "name" || dual.Attr(model.AttrEnabledIn) != "development" ||
		dual.Attr(model.AttrProduction) != "false" || dual.Attr(AttrStrategies) != "default" || dual.Attr(model.AttrGuard) != "" || !dual.LastUsedAt.IsZero() {
		t.Errorf("flag tied by its name, on in development: %+v", dual)
	}
	shadow := by[uri("ledger-shadow-read")]
	if shadow.State != model.StateDisabled || shadow.BackfillID != "BF-1234" || shadow.Correlation != "description" ||
		shadow.Attr(model.AttrPosition) != "disabled" || shadow.Attr(model.AttrEnabledIn) != "" || shadow.Attr(model.AttrProduction) != "false" {
		t.Errorf("flag tied by its description, off everywhere: %+v", shadow)
	}
	for name, id := range map[string]string{"old-bf-99": "bf-99", "tagged-arch": "BF-55"} {
		a := by[uri(name)]
		if a.State != model.StateDeleted || a.Attr(model.AttrArchived) != "true" || a.BackfillID != id || a.State.Live() {
			t.Errorf("archived flag %s: %+v", name, a)
		}
	}
}

// export_dir reads the same answers from files: the same flags, without
// the addresses of a server.
func TestExportDir(t *testing.T) {
	u := New()
	u.ExportDir = "export"
	env := testEnv("unl")
	env.BaseDir = "testdata"
	if err := u.Init(env); err != nil {
		t.Fatal(err)
	}
	sink, err := collectortest.Collect(t, u)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	checkRealFlags(t, sink.Artifacts, "")
}

func TestExportDirErrors(t *testing.T) {
	u := New()
	u.ExportDir = "/nonexistent/unleash-export"
	if err := u.Init(testEnv("unleash")); err != nil {
		t.Fatal(err)
	}
	if _, err := collectortest.Collect(t, u); err == nil || !strings.Contains(err.Error(), "export_dir") {
		t.Errorf("Collect = %v, want an error naming export_dir", err)
	}
	// A project without its features.json did not answer; one whose
	// features.json is malformed neither.
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("projects.json", `{"projects":[{"id":"a"},{"id":"b"},{"id":"c"}]}`)
	write("projects/b/features.json", `{"features": null}`)
	write("projects/c/features.json", `{"features":[{"name":"bf-1-x","environments":[{"name":"production","enabled":true,"type":"production"}]}]}`)
	u = New()
	u.ExportDir = dir
	if err := u.Init(testEnv("unleash")); err != nil {
		t.Fatal(err)
	}
	sink, err := collectortest.Collect(t, u)
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]string{}
	for _, e := range sink.Errors {
		errs[e.Scope] = e.Error
	}
	if !strings.Contains(errs["a"], "features.json: missing") || !strings.Contains(errs["b"], "no features list") || len(errs) != 2 {
		t.Errorf("errors %+v, want projects a and b failed", sink.Errors)
	}
	if len(sink.Artifacts) != 1 || sink.Artifacts[0].Attr(model.AttrProduction) != "true" {
		t.Errorf("project c's flag (its environment type from the flag, no environments.json): %+v", sink.Artifacts)
	}
}

// flagEntry is a search entry for a flag on in production.
func flagEntry(name string, tags ...string) map[string]any {
	var ts []any
	for _, tg := range tags {
		typ, val, _ := strings.Cut(tg, "=")
		ts = append(ts, map[string]any{"type": typ, "value": val})
	}
	return map[string]any{"name": name, "type": "release", "project": "default", "createdAt": "2026-01-01T00:00:00.000Z",
		"environments": []any{map[string]any{"name": "production", "enabled": true, "type": "production", "lastSeenAt": nil}}, "tags": ts}
}

// A project of 250 flags is read in pages of 100; max_pages bounds it
// and a listing cut short by the bound is an error at the project.
func TestPaging(t *testing.T) {
	f := newFake(t)
	var flags []any
	for i := range 250 {
		flags = append(flags, flagEntry(fmt.Sprintf("flag-%03d", i)))
	}
	flags[7] = flagEntry("bf-77-flag")
	flags[240] = flagEntry("late-flag", "backfill=BF-240")
	f.setJSON("projects/default/features.json", map[string]any{"features": flags})
	f.setJSON("projects/default/archived.json", map[string]any{"features": []any{}})
	sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	if sink.Artifact(uri("bf-77-flag")) == nil || sink.Artifact(uri("late-flag")) == nil || len(sink.Artifacts) != 2 {
		t.Errorf("flags of pages 1 and 3: %+v", sink.Artifacts)
	}
	pages := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, "GET /api/admin/search/features?") && !strings.Contains(r, "archived") && strings.Contains(r, "IS%3Adefault") {
			pages++
			if !strings.Contains(r, "limit=100") {
				t.Errorf("search request %s", r)
			}
		}
	}
	if pages != 3 {
		t.Errorf("%d pages read, want 3: %v", pages, f.requests)
	}

	c := newCollector(t, f.URL())
	c.MaxPages = 2
	sink, err = collectortest.Collect(t, c)
	if err == nil || !strings.Contains(err.Error(), "max_pages") {
		t.Errorf("Collect = %v, want the source failed with its only project", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "default" || !strings.Contains(sink.Errors[0].Error, "max_pages") {
		t.Errorf("errors %+v, want the project cut short at max_pages", sink.Errors)
	}
	if sink.Artifact(uri("late-flag")) != nil {
		t.Error("a flag of the page past max_pages was reported")
	}
}

// A server that answers the same page whatever the offset never ends the
// listing: the pager stops it, at the project.
func TestPagingDoesNotAdvance(t *testing.T) {
	f := newFake(t)
	var page []any
	for i := range 100 {
		page = append(page, flagEntry(fmt.Sprintf("bf-%d-x", i)))
	}
	f.set("/api/admin/search/features", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"features": page, "total": 100000})
	}))
	sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err == nil || !strings.Contains(err.Error(), "repeats items") {
		t.Errorf("Collect = %v, want the source failed with its only project", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "default" || !strings.Contains(sink.Errors[0].Error, "repeats items") {
		t.Errorf("errors %+v, want the listing stopped at the project", sink.Errors)
	}
}

// Each unit fails on its own: the projects listing fails the source; a
// project's search its project; its archive search its project (the live
// flags still reported); a flag's detail that flag (still reported from
// the listing, without its strategies).
func TestUnits(t *testing.T) {
	t.Run("projects", func(t *testing.T) {
		f := newFake(t)
		f.set("/api/admin/projects", status(500))
		if _, err := collectortest.Collect(t, newCollector(t, f.URL())); err == nil || !strings.Contains(err.Error(), "list projects") || !strings.Contains(err.Error(), "HTTP 500") {
			t.Errorf("Collect = %v, want the source failed", err)
		}
	})
	t.Run("environments", func(t *testing.T) {
		f := newFake(t)
		f.set("/api/admin/environments", status(503))
		if _, err := collectortest.Collect(t, newCollector(t, f.URL())); err == nil || !strings.Contains(err.Error(), "list environments") {
			t.Errorf("Collect = %v, want the source failed", err)
		}
	})
	t.Run("project search", func(t *testing.T) {
		f := newFake(t)
		f.set("/api/admin/search/features", status(500))
		sink := collectLoneBroken(t, newCollector(t, f.URL()), "default", "HTTP 500")
		if len(sink.Artifacts) != 0 {
			t.Errorf("flags reported from a project that did not answer: %+v", sink.Artifacts)
		}
		// The error names the address it failed at once, with its query.
		if e := sink.Errors[0].Error; strings.Count(e, "/api/admin/search/features") != 1 || !strings.Contains(e, "project=IS%3Adefault") {
			t.Errorf("error %q, want the search's address named once, with its query", e)
		}
	})
	t.Run("archive search", func(t *testing.T) {
		f := newFake(t)
		f.set("/api/admin/search/features#archived", status(500))
		sink := collectortest.CollectBroken(t, newCollector(t, f.URL()), "default", "list archived flags")
		if len(sink.Artifacts) != 3 || sink.Artifact(uri("old-bf-99")) != nil {
			t.Errorf("want the 3 live flags, no archived one: %+v", sink.Artifacts)
		}
	})
	t.Run("flag detail", func(t *testing.T) {
		f := newFake(t)
		f.set("/api/admin/projects/default/features/bf-1234-replay-guard", status(500))
		sink := collectortest.CollectBroken(t, newCollector(t, f.URL()), "default/bf-1234-replay-guard", "read flag bf-1234-replay-guard")
		a := sink.Artifact(uri("bf-1234-replay-guard"))
		if a == nil || a.State != model.StateEnabled || a.Attr(AttrStrategies) != "" || a.Attr(model.AttrProduction) != "true" {
			t.Errorf("the flag is reported from the listing, without strategies: %+v", a)
		}
		if d := sink.Artifact(uri("bf_1234_dual_write")); d == nil || d.Attr(AttrStrategies) != "default" {
			t.Errorf("another flag's detail: %+v", d)
		}
		// The project's 6 flags were read, that one only in part.
		if n, partial := readWithin(sink, "default", "flags"); n != 6 || partial != 1 {
			t.Errorf("read %d flags, %d in part; want 6, 1", n, partial)
		}
		if n, partial := sink.Read("default/bf-1234-replay-guard", "flags"); n != 1 || partial != 1 {
			t.Errorf("the flag's unit read %d, %d in part; want 1, 1", n, partial)
		}
		if e := sink.Errors[0].Error; strings.Count(e, "/api/admin/projects/default/features/bf-1234-replay-guard") != 1 {
			t.Errorf("error %q, want the flag's address named once", e)
		}
	})
}

// projects: an allow-list reads only those; one not listed is an error at
// its own scope.
func TestProjectsAllowList(t *testing.T) {
	f := newFake(t)
	c := newCollector(t, f.URL())
	c.Projects = []string{"default", "ghost"}
	sink, err := collectortest.Collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "ghost" || len(sink.Artifacts) != 5 {
		t.Errorf("errors %+v, %d flags", sink.Errors, len(sink.Artifacts))
	}
	f.setJSON("projects.json", map[string]any{"projects": []any{map[string]any{"id": "default"}, map[string]any{"id": "other"}}})
	c.Projects = []string{"other"}
	f.mu.Lock()
	f.requests = nil
	f.mu.Unlock()
	sink, _ = collectortest.Collect(t, c)
	if len(sink.Artifacts) != 0 || len(sink.Errors) != 0 {
		t.Errorf("only project other (no flags) is read: %+v %+v", sink.Artifacts, sink.Errors)
	}
	for _, r := range f.requests {
		if strings.Contains(r, "IS%3Adefault") || strings.Contains(r, "/projects/default/") {
			t.Errorf("project default was read: %s", r)
		}
	}
}

// A malformed entry is an error at its flag and the others are reported;
// answers that are not the API's shape fail their unit.
func TestMalformedAnswers(t *testing.T) {
	f := newFake(t)
	bad := flagEntry("bf-2-bad")
	bad["createdAt"] = "yesterday"
	f.setJSON("projects/default/features.json", map[string]any{"features": []any{flagEntry("bf-1-good"), bad, map[string]any{"name": ""}}})
	f.setJSON("projects/default/archived.json", map[string]any{"features": []any{}})
	sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err != nil {
		t.Fatal(err)
	}
	scopes := map[string]string{}
	for _, e := range sink.Errors {
		scopes[e.Scope] = e.Error
	}
	if !strings.Contains(scopes["default/bf-2-bad"], "createdAt") || !strings.Contains(scopes["default"], "no name") || len(scopes) != 2 {
		t.Errorf("errors %+v", sink.Errors)
	}
	if sink.Artifact(uri("bf-1-good")) == nil || sink.Artifact(uri("bf-2-bad")) != nil {
		t.Errorf("artifacts %+v", sink.Artifacts)
	}
	for _, body := range []string{"null", "", "[]", `{"projects": null}`, `{"projects": [{"id": 3}]}`, "<html>"} {
		t.Run("projects "+body, func(t *testing.T) {
			f := newFake(t)
			f.mu.Lock()
			f.files["projects.json"] = []byte(body)
			f.mu.Unlock()
			if _, err := collectortest.Collect(t, newCollector(t, f.URL())); err == nil || !strings.Contains(err.Error(), "list projects") {
				t.Errorf("Collect = %v, want the source failed on its project listing", err)
			}
		})
	}
}

// The token goes alone in the Authorization header; without it Unleash
// answers 401 and the source fails.
func TestAuth(t *testing.T) {
	f := newFake(t)
	if sink, err := collectortest.Collect(t, newCollector(t, f.URL())); err != nil || len(sink.Artifacts) != 5 {
		t.Fatalf("with the token: %v", err)
	}
	c := newCollector(t, f.URL())
	c.AuthScheme = "Bearer"
	if err := c.Init(testEnv("unl")); err != nil {
		t.Fatal(err)
	}
	_, err := collectortest.Collect(t, c)
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || strings.Contains(err.Error(), "test-token") {
		t.Errorf("with Bearer: %v, want HTTP 401 and no token", err)
	}
}

func TestTies(t *testing.T) {
	sel := correlate.MustSelector()
	sel.AddAssets([]model.Backfill{{ID: "BF-9", AssetsToRemove: []string{"unleash://unl/projects/p/features/plain"}}})
	u := New()
	u.URL = "http://unleash:4242"
	if err := u.Init(collectors.Env{Source: "unl", Selector: sel, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, desc  string
		tags        []tag
		id, how     string
		others, lab string
	}{
		{"plain", "", nil, "BF-9", "asset", "", ""},
		{"x", "", []tag{{"backfill", "BF-3"}, {"backfill", "BF-4"}, {"backfill", "bf_3"}}, "BF-3", "label", "BF-4", "BF-3,BF-4,bf_3"},
		{"bf-5-x", "", []tag{{"simple", "BF-6"}}, "bf-5", "name", "", ""},
		{"x", "Dual write (BF-7): remove after", nil, "BF-7", "description", "", ""},
		{"x", "nothing here; checkout v2", []tag{{"simple", "bf-8"}}, "", "", "", ""},
	} {
		got, ok := u.tie("p", flag{Name: tt.name, Description: tt.desc, Tags: tt.tags})
		if ok != (tt.id != "") || got.backfillID != tt.id || got.how != tt.how || strings.Join(got.others, ",") != tt.others {
			t.Errorf("%s %q %v: tie = %q by %q (others %v, ok %v); want %q by %q", tt.name, tt.desc, tt.tags, got.backfillID, got.how, got.others, ok, tt.id, tt.how)
		}
		if ok && tagLabels(tt.tags)["backfill"] != tt.lab {
			t.Errorf("labels %v", tagLabels(tt.tags))
		}
	}
}

// Guard and replay-position tags, and a custom guard tag type.
func TestGuardAndReplayPosition(t *testing.T) {
	u := New()
	u.URL, u.GuardTagType = "http://unleash:4242", "guards"
	if err := u.Init(testEnv("unl")); err != nil {
		t.Fatal(err)
	}
	art := func(tags ...tag) model.Artifact {
		tf, _ := u.tie("p", flag{Name: "bf-1-x", Tags: tags})
		return u.artifact(tf, nil)
	}
	if a := art(tag{"guards", "payments"}); a.Attr(model.AttrGuard) != "true" {
		t.Errorf("guard_tag_type: %+v", a.Attributes)
	}
	if a := art(tag{"simple", "side-effect-guard"}, tag{"simple", "replay-position:enabled"}); a.Attr(model.AttrGuard) != "true" || a.Attr(model.AttrReplayPosition) != "enabled" {
		t.Errorf("guard value and replay position: %+v", a.Attributes)
	}
	if a := art(tag{"side-effect-guard", "x"}, tag{"simple", "replay-position:sideways"}); a.Attr(model.AttrGuard) != "" || a.Attr(model.AttrReplayPosition) != "" {
		t.Errorf("the default guard type no longer applies, and an unknown position is not one: %+v", a.Attributes)
	}
}

// Keep tags: type bfaudit-keep-until or bfaudit-keep-reason, the value
// holding the date or the reason as written.
func TestKeepTags(t *testing.T) {
	u := New()
	u.URL = "http://unleash:4242"
	if err := u.Init(testEnv("unl")); err != nil {
		t.Fatal(err)
	}
	tf, _ := u.tie("p", flag{Name: "bf-1-x", Tags: []tag{{"bfaudit-keep-until", "2027-01-31"}, {"bfaudit-keep-reason", "guards the Q1 refunds replay"}, {"simple", "x"}}})
	a := u.artifact(tf, nil)
	if a.Attr(model.AttrKeepUntil) != "2027-01-31" || a.Attr(model.AttrKeepReason) != "guards the Q1 refunds replay" {
		t.Errorf("keep tags: %+v", a.Attributes)
	}
	tf, _ = u.tie("p", flag{Name: "bf-1-y", Tags: []tag{{"simple", "bfaudit-keep-until"}}})
	if a := u.artifact(tf, nil); a.HasKeep() {
		t.Errorf("a tag valued bfaudit-keep-until is no keep tag: %+v", a.Attributes)
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	t.Setenv("BFAUDIT_UNLEASH_TOKEN", "*:*.sample")
	inst := collectortest.DecodeSample(t, "sample.yaml")
	u := inst.Collector.(*Unleash)
	if inst.Type != "unleash" || u.Timeout != 30*time.Second || u.TagType != "backfill" || u.URL == "" || u.AuthScheme != "raw" || u.client == nil {
		t.Errorf("decoded %+v", u)
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	t.Setenv("TEST_UNLEASH_EMPTY", "")
	base := map[string]any{"type": "unleash", "url": "http://unleash:4242"}
	collectortest.RejectsBadTimeouts(t, base)
	for _, tt := range []struct {
		extra map[string]any
		key   string
	}{
		{map[string]any{"url": ""}, "url"},
		{map[string]any{"url": "unleash:4242"}, "url"},
		{map[string]any{"url": "http://u:p@unleash:4242"}, "url"},
		{map[string]any{"export_dir": "x"}, "export_dir"},
		{map[string]any{"token_env": "TEST_UNLEASH_EMPTY"}, "token_env"},
		{map[string]any{"tag_type": "team"}, "tag_type"},
		{map[string]any{"tag_type": ""}, "tag_type"},
		{map[string]any{"concurrency": 0}, "concurrency"},
		{map[string]any{"max_pages": 0}, "max_pages"},
		{map[string]any{"projects": []string{""}}, "projects[0]"},
		{map[string]any{"ca_file": "/nonexistent/ca.pem"}, "ca_file"},
		{map[string]any{"project": "x"}, "project"},
	} {
		e := map[string]any{}
		for k, v := range base {
			e[k] = v
		}
		for k, v := range tt.extra {
			e[k] = v
		}
		_, err := decode(e)
		if err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("%v: err %v, want one naming %s", tt.extra, err, tt.key)
		}
	}
}

// Who added a keep tag comes from the event log, newest first; a failed
// read leaves it unknown with a note and the flag as read.
func TestKeepTagAuthorFromTheEventLog(t *testing.T) {
	f := newFake(t)
	search := map[string]any{}
	var flags struct {
		Features []map[string]any `json:"features"`
	}
	f.mu.Lock()
	_ = json.Unmarshal(f.files["projects/default/features.json"], &flags)
	f.mu.Unlock()
	if len(flags.Features) == 0 {
		t.Fatal("the export has no flags")
	}
	kept := flags.Features[0]
	name, _ := kept["name"].(string)
	tags, _ := kept["tags"].([]any)
	kept["tags"] = append(tags, map[string]any{"type": model.KeepUntilKey, "value": "2027-01-31"}, map[string]any{"type": model.KeepReasonKey, "value": "finance"})
	search["features"] = flags.Features
	f.setJSON("projects/default/features.json", search)
	events := func(by string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("feature") != "IS:"+name || r.URL.Query().Get("type") != "IS:feature-tagged" {
				writeJSON(w, http.StatusOK, map[string]any{"events": []any{}, "total": 0})
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"total": 2, "events": []any{
				map[string]any{"type": "feature-tagged", "createdBy": by, "data": map[string]any{"type": model.KeepUntilKey, "value": "2027-01-31"}},
				map[string]any{"type": "feature-tagged", "createdBy": "someone-earlier@example.com", "data": map[string]any{"type": model.KeepUntilKey, "value": "2026-06-30"}},
			}})
		})
	}
	f.set("/api/admin/search/events", events("alice@example.com"))
	u := newCollector(t, f.URL())
	sink, err := collectortest.Collect(t, u)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	var got *model.Artifact
	for i, a := range sink.Artifacts {
		if a.Name == name {
			got = &sink.Artifacts[i]
		}
	}
	if got == nil || got.Attr(model.AttrKeepBy) != "alice@example.com" {
		t.Fatalf("kept flag %s: %+v, want keep_by alice (the newest matching event)", name, got)
	}

	f.set("/api/admin/search/events", status(http.StatusForbidden))
	sink, err = collectortest.Collect(t, u)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("a failed event read is not an error of the flag: %v %+v", err, sink.Errors)
	}
	for _, a := range sink.Artifacts {
		if a.Name == name && (a.Attr(model.AttrKeepBy) != "" || a.Attr(model.AttrKeepUntil) != "2027-01-31") {
			t.Errorf("after a failed event read: %+v", a.Attributes)
		}
	}
	if notes := u.Notes(); len(notes) != 2 || !strings.Contains(notes[0], "who set its keep tag is unknown") {
		t.Errorf("notes %q, want one saying the keep tag's author is unknown", notes)
	}
}
