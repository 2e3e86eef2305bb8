package unleash_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/unleash"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// realUnleash returns the address and admin token of the Unleash the tests
// create flags in, or skips.
func realUnleash(t *testing.T) (string, string) {
	t.Helper()
	u, tok := os.Getenv("BFAUDIT_TEST_UNLEASH_URL"), os.Getenv("BFAUDIT_TEST_UNLEASH_TOKEN")
	if u == "" || tok == "" {
		t.Skip("set BFAUDIT_TEST_UNLEASH_URL=http://127.0.0.1:4242 and BFAUDIT_TEST_UNLEASH_TOKEN (an Unleash 7 with an admin API token; .ci/run starts unleash-server 7.5.1 with collectors/unleash/testdata/realserver/start.mjs) to run the real-server tests")
	}
	return strings.TrimRight(u, "/"), tok
}

// uniqueID is a backfill id no other test run uses, so runs sharing the
// server do not see each other's flags.
func uniqueID() string {
	b := make([]byte, 3)
	rand.Read(b)
	return fmt.Sprintf("BF-%d", 100000+(int(b[0])<<16|int(b[1])<<8|int(b[2]))%900000)
}

// admin calls the Admin API; ok lists the statuses accepted besides 2xx.
type admin struct {
	t         *testing.T
	base, tok string
}

func (a admin) call(method, path string, body any, ok ...int) {
	a.t.Helper()
	var r *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	} else {
		r = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, a.base+path, r)
	req.Header.Set("Authorization", a.tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 && !slices.Contains(ok, resp.StatusCode) {
		a.t.Fatalf("%s %s: HTTP %d", method, path, resp.StatusCode)
	}
}

// flag creates a flag in the default project, with tags and the
// environments it is on in, and archives it when the test ends.
func (a admin) flag(name, description string, tags map[string]string, on ...string) {
	a.t.Helper()
	a.flagIn("default", name, description, tags, on...)
}

// flagIn creates a flag in project.
func (a admin) flagIn(project, name, description string, tags map[string]string, on ...string) {
	a.t.Helper()
	a.call(http.MethodPost, "/api/admin/projects/"+project+"/features", map[string]any{"name": name, "type": "operational", "description": description})
	a.t.Cleanup(func() {
		// Archived, not deleted: Unleash 7.5.1 records an archived flag's
		// lifecycle stage asynchronously, and deleting it from the archive
		// at once races that insert; on a busy machine the server dies on
		// the foreign-key error. Names carry a random suffix, and CI makes
		// Unleash's database afresh for each run.
		a.call(http.MethodDelete, "/api/admin/projects/"+project+"/features/"+name, nil, 404)
	})
	for typ, v := range tags {
		a.call(http.MethodPost, "/api/admin/features/"+name+"/tags", map[string]any{"type": typ, "value": v})
	}
	for _, env := range on {
		a.switchOnIn(project, name, env)
	}
}

func (a admin) switchOn(name, env string) {
	a.t.Helper()
	a.switchOnIn("default", name, env)
}

func (a admin) switchOnIn(project, name, env string) {
	a.t.Helper()
	a.call(http.MethodPost, "/api/admin/projects/"+project+"/features/"+name+"/environments/"+env+"/strategies", map[string]any{"name": "default"})
	a.call(http.MethodPost, "/api/admin/projects/"+project+"/features/"+name+"/environments/"+env+"/on", nil)
}

// hiddenProject makes a project the way one survives on the open-source
// edition (made in the Enterprise edition, or before a downgrade): a row
// in Unleash's own database, with the default project's environments.
// Unleash 7.5.1 open source creates no project through its API (POST
// /api/admin/projects answers 404) and lists only default, yet serves the
// flags of every project. The row stays: CI makes the database afresh.
func hiddenProject(t *testing.T, id string) {
	t.Helper()
	dsn := os.Getenv("BFAUDIT_TEST_UNLEASH_PG_DSN")
	if dsn == "" {
		t.Skip("set BFAUDIT_TEST_UNLEASH_PG_DSN to the PostgreSQL database the Unleash server runs on (.ci/run: postgres://postgres@127.0.0.1:5432/unleash_ci) to make a project its listing lacks")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("Unleash's database: %v", err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`INSERT INTO projects (id, name, description) VALUES ($1, $1, 'bfaudit tests: a project the listing lacks') ON CONFLICT (id) DO NOTHING`,
		`INSERT INTO project_environments (project_id, environment_name)
		 SELECT $1, environment_name FROM project_environments WHERE project_id = 'default' ON CONFLICT DO NOTHING`,
	} {
		if _, err := conn.Exec(ctx, q, id); err != nil {
			t.Fatalf("Unleash's database: %v", err)
		}
	}
}

func (a admin) tagTypes(names ...string) {
	for _, n := range names {
		a.call(http.MethodPost, "/api/admin/tag-types", map[string]any{"name": n, "description": "bfaudit tests"}, 409)
	}
}

func collector(t *testing.T, url, token, name string) collectors.Instance {
	t.Helper()
	t.Setenv("BFAUDIT_TEST_UNLEASH_TOKEN_FOR_SOURCE", token)
	u := unleash.New()
	u.URL, u.TokenEnv, u.Timeout = url, "BFAUDIT_TEST_UNLEASH_TOKEN_FOR_SOURCE", 10*time.Second
	u.Retry = remote.RetryPolicy{Attempts: 2, Base: 10 * time.Millisecond}
	if err := u.Init(collectors.Env{Source: name, Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return collectors.Instance{Name: name, Type: "unleash", Collector: u}
}

func collect(t *testing.T, in collectors.Instance) *collectors.TestSink {
	t.Helper()
	sink, err := collectortest.Collect(t, in.Collector)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	return sink
}

func TestRealServerFlags(t *testing.T) {
	base, tok := realUnleash(t)
	a := admin{t, base, tok}
	a.tagTypes("backfill", "side-effect-guard")
	id := uniqueID()
	low := strings.ToLower(id)
	tagged, byName, byDesc, untied := "ledger-"+low[3:]+"-guard", low+"-dual-write", "shadow-"+low[3:], "checkout-"+low[3:]
	a.flag(tagged, "replay guard", map[string]string{"backfill": id, "side-effect-guard": "payments", "simple": "replay-position:disabled"}, "production")
	a.flag(byName, "", nil, "development")
	a.flag(byDesc, "shadow reads for the "+id+" replay", nil)
	a.flag(untied, "new checkout", nil, "production")

	in := collector(t, base, tok, "unl")
	uri := func(name string) string { return "unleash://unl/projects/default/features/" + name }
	sink := collect(t, in)
	g := sink.Artifact(uri(tagged))
	if g == nil || g.State != model.StateEnabled || g.BackfillID != id || g.Correlation != "label" || g.Attr(model.AttrEnabledIn) != "production" ||
		g.Attr(model.AttrProduction) != "true" || g.Attr(model.AttrGuard) != "true" || g.Attr(model.AttrReplayPosition) != "disabled" ||
		g.Attr(unleash.AttrStrategies) != "default" || g.Attr(model.AttrURL) != base+"/projects/default/features/"+tagged ||
		g.Scope != "default/"+tagged || g.CreatedAt.IsZero() {
		t.Errorf("tagged flag: %+v", g)
	}
	n := sink.Artifact(uri(byName))
	if n == nil || n.State != model.StateEnabled || !model.SameID(n.BackfillID, id) || n.Correlation != "name" || n.Attr(model.AttrProduction) != "false" {
		t.Errorf("flag tied by its name: %+v", n)
	}
	d := sink.Artifact(uri(byDesc))
	if d == nil || d.State != model.StateDisabled || d.BackfillID != id || d.Correlation != "description" {
		t.Errorf("flag tied by its description: %+v", d)
	}
	if sink.Artifact(uri(untied)) != nil {
		t.Error("a flag tied to no backfill was reported")
	}

	// Flip the tagged flag out of production into development, archive
	// the one tied by its name: the next audit sees both.
	a.call(http.MethodPost, "/api/admin/projects/default/features/"+tagged+"/environments/production/off", nil)
	a.switchOn(tagged, "development")
	a.call(http.MethodDelete, "/api/admin/projects/default/features/"+byName, nil)
	sink = collect(t, in)
	if g := sink.Artifact(uri(tagged)); g == nil || g.State != model.StateEnabled || g.Attr(model.AttrEnabledIn) != "development" || g.Attr(model.AttrProduction) != "false" {
		t.Errorf("flipped flag: %+v", g)
	}
	if n := sink.Artifact(uri(byName)); n == nil || n.State != model.StateDeleted || n.Attr(model.AttrArchived) != "true" {
		t.Errorf("archived flag: %+v", n)
	}
}

// planned plays a plans source: one plan per id, replayed 30 days ago,
// expired 20 days ago.
type planned []string

// Init takes nothing from the Env.
func (planned) Init(collectors.Env) error { return nil }

// Units declares the whole source.
func (planned) Units(context.Context) ([]string, error) { return []string{""}, nil }

func (p planned) CollectUnit(_ context.Context, _ string, sink collectors.Sink) error {
	now := time.Now().UTC()
	for _, id := range p {
		sink.AddBackfill(model.Backfill{ID: id, Origin: model.OriginPlan, Owner: "data-eng@example.com", Status: model.StatusReplayed,
			Timeline: model.Timeline{StartedAt: now.Add(-32 * 24 * time.Hour), CompletedAt: now.Add(-30 * 24 * time.Hour)},
			Expiry:   now.Add(-20 * 24 * time.Hour), Source: model.Location{Source: "plans", Path: "plans/" + id + ".yaml"}})
	}
	sink.AddRead("", "plans", 1, 0)
	return nil
}

// An audit against the real Unleash flags a backfill whose flag is still
// on, with the command that archives it; a stopped server fails its own
// source, with nothing reported from it, and no other.
func TestRealServerAudit(t *testing.T) {
	base, tok := realUnleash(t)
	a := admin{t, base, tok}
	a.tagTypes("backfill")
	id := uniqueID()
	name := "replay-writes-" + strings.ToLower(id)[3:]
	a.flag(name, "", map[string]string{"backfill": id}, "production")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	stopped := collector(t, down, tok, "unleash-down")
	sink, err := collectortest.Collect(t, stopped.Collector)
	if err == nil || !strings.Contains(err.Error(), "list projects") || len(sink.Artifacts) != 0 {
		t.Errorf("stopped server: %v, %d flags; want the source failed with nothing reported", err, len(sink.Artifacts))
	}

	rep := collectortest.Audit(t, []collectors.Instance{
		{Name: "plans", Type: "records", Collector: planned{id}},
		collector(t, base, tok, "unl"),
		stopped,
	}, time.Now().UTC())
	for _, c := range rep.Coverage {
		switch c.Source {
		case "unleash-down":
			if c.Status != model.CoverageFailed {
				t.Errorf("the stopped server's coverage: %+v", c)
			}
		default:
			if c.Status != model.CoverageOK {
				t.Errorf("%s degraded by another source being down: %+v", c.Source, c)
			}
		}
	}
	var found *model.Finding
	for i, f := range rep.Findings {
		if f.ArtifactURI == "unleash://unl/projects/default/features/"+name {
			found = &rep.Findings[i]
		}
	}
	if found == nil || !model.SameID(found.BackfillID, id) {
		t.Fatalf("no finding on the flag left on: %+v", rep.Findings)
	}
	text := found.Message + "\n" + strings.Join(found.Evidence, "\n")
	if !strings.Contains(text, name) {
		t.Errorf("the finding does not name the flag:\n%s", text)
	}
}

// A keep tag names who added it: Unleash keeps that only in its event log
// (feature-tagged, createdBy), here the admin token's name.
func TestRealServerKeepTagAuthor(t *testing.T) {
	base, tok := realUnleash(t)
	a := admin{t, base, tok}
	a.tagTypes("backfill", model.KeepUntilKey, model.KeepReasonKey)
	id := uniqueID()
	name := strings.ToLower(id) + "-kept"
	a.flag(name, "", map[string]string{"backfill": id, model.KeepUntilKey: "2027-01-31", model.KeepReasonKey: "finance reads it"})
	sink := collect(t, collector(t, base, tok, "unl"))
	f := sink.Artifact("unleash://unl/projects/default/features/" + name)
	if f == nil || f.Attr(model.AttrKeepUntil) != "2027-01-31" || f.Attr(model.AttrKeepBy) != "admin" {
		t.Fatalf("kept flag: %+v, want keep_by the admin token's name", f)
	}
	if strings.Contains(fmt.Sprint(f.Attributes), tok) {
		t.Errorf("the token is in the flag's attributes: %v", f.Attributes)
	}
}

// Flags of a project the open-source edition's listing does not show are
// found through the flag search across projects, each under its project's
// unit; projects: may name such a project (and one the server does not
// know is an error there alone); a project whose flags are all archived
// is still found, its flags deleted.
func TestRealServerProjectTheListingLacks(t *testing.T) {
	base, tok := realUnleash(t)
	a := admin{t, base, tok}
	id := uniqueID()
	low := strings.ToLower(id)
	proj := "payments-" + low[3:]
	hiddenProject(t, proj)
	a.tagTypes("backfill")
	guard, shadow, inDefault := "refund-guard-"+low[3:], "refund-shadow-"+low[3:], low+"-ledger-dual-write"
	a.flagIn(proj, guard, "", map[string]string{"backfill": id}, "production")
	a.flagIn(proj, shadow, "shadow reads for the "+id+" replay", nil)
	a.flag(inDefault, "", nil, "development")

	in := collector(t, base, tok, "unl")
	u := in.Collector.(*unleash.Unleash)
	uri := func(project, name string) string { return "unleash://unl/projects/" + project + "/features/" + name }
	sink := collect(t, in)
	g := sink.Artifact(uri(proj, guard))
	if g == nil || g.State != model.StateEnabled || g.BackfillID != id || g.Correlation != "label" || g.Attr(model.AttrProduction) != "true" ||
		g.Scope != proj+"/"+guard || g.Attr(model.AttrProject) != proj || g.Attr(model.AttrURL) != base+"/projects/"+proj+"/features/"+guard ||
		g.Attr(unleash.AttrStrategies) != "default" {
		t.Errorf("the flag on in production in %s: %+v", proj, g)
	}
	if s := sink.Artifact(uri(proj, shadow)); s == nil || s.State != model.StateDisabled || s.BackfillID != id || s.Correlation != "description" {
		t.Errorf("the flag tied by its description in %s: %+v", proj, s)
	}
	if d := sink.Artifact(uri("default", inDefault)); d == nil || d.State != model.StateEnabled {
		t.Errorf("the flag in default: %+v", d)
	}
	if n := flagsWithin(sink, proj); n != 2 {
		t.Errorf("%d flags read in %s, want its 2", n, proj)
	}
	if notes := strings.Join(u.Notes(), "\n"); !strings.Contains(notes, proj+" (2 flags") {
		t.Errorf("notes %q, want the projects read, %s among them", notes, proj)
	}

	ghost := "ghost-" + low[3:]
	u.Projects = []string{proj, ghost}
	sink, err := collectortest.Collect(t, u)
	if err != nil || len(sink.Errors) != 1 || sink.Errors[0].Scope != ghost || !strings.Contains(sink.Errors[0].Error, "no such project") {
		t.Errorf("projects: [%s, %s]: %v %+v, want %s alone failed, as no such project", proj, ghost, err, sink.Errors, ghost)
	}
	if sink.Artifact(uri(proj, guard)) == nil || sink.Artifact(uri("default", inDefault)) != nil {
		t.Errorf("projects: [%s, %s] read: %+v", proj, ghost, sink.Artifacts)
	}

	u.Projects = nil
	a.call(http.MethodDelete, "/api/admin/projects/"+proj+"/features/"+guard, nil)
	a.call(http.MethodDelete, "/api/admin/projects/"+proj+"/features/"+shadow, nil)
	sink = collect(t, in)
	for _, name := range []string{guard, shadow} {
		if f := sink.Artifact(uri(proj, name)); f == nil || f.State != model.StateDeleted || f.Attr(model.AttrArchived) != "true" {
			t.Errorf("archived flag %s of %s: %+v", name, proj, f)
		}
	}
}

// flagsWithin adds up the flags read in project and its flags' units.
func flagsWithin(sink *collectors.TestSink, project string) int {
	n := 0
	for _, r := range sink.Reads {
		if r.What == "flags" && model.ScopeWithin(r.Scope, project) {
			n += r.Read
		}
	}
	return n
}
