package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

func TestDryRunPrintsEveryWriteAndMakesNone(t *testing.T) {
	f := newFakeGitHub(t)
	live, _ := newTestSink(t, f)
	e := threeBackfills()
	runSync(t, live, e)
	bf1 := issueFor(t, f, "BF-1")
	// BF-1 resolves entirely, BF-2 partly changes, BF-5 is new.
	e.without("bigquery://proj-a/tmp/bf_1_tbl").without("gcp-iam://proj-a/roles/editor/sa-bf1").without("")
	e.finding("BF-2", "BF007", model.StepNormalized, "monitoring://alerts/bf-2")
	e.backfill("BF-5", "team-payments").finding("BF-5", "BF005", model.StepRetired, "bigquery://proj-a/tmp/bf_5")
	before, _ := f.snapshot()

	dry, out := newTestSink(t, f, func(c *Config) { c.DryRun = true })
	f.resetCounts()
	res := runSync(t, dry, e)

	if _, writes := f.counts(); writes != 0 || res.Writes != 0 {
		t.Fatalf("dry run made %d writes", writes)
	}
	if after, _ := f.snapshot(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("dry run changed the issues")
	}
	if res.Created != 1 || res.Closed != 1 || res.Edited != 1 || res.Commented != 1 {
		t.Errorf("dry-run counts %+v, want what a live run would do", res)
	}
	// The plan is JSON Lines: one object per write, nothing else.
	var calls []plannedCall
	var raw []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var c plannedCall
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, line)
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		calls, raw = append(calls, c), append(raw, m)
	}
	if len(calls) != 4 {
		t.Fatalf("%d planned calls, want 4 (create, edit, close, comment):\n%s", len(calls), out)
	}
	find := func(what string) map[string]any {
		t.Helper()
		for i, c := range calls {
			if strings.HasPrefix(c.What, what) {
				return raw[i]
			}
		}
		t.Fatalf("no planned call %q in:\n%s", what, out)
		return nil
	}
	create := find("create issue for BF-5")
	req, _ := create["request"].(map[string]any)
	if create["sink"] != "github" || create["method"] != "POST" || create["path"] != "/repos/acme/data-platform/issues" ||
		create["backfill"] != "BF-5" || !strings.HasPrefix(fmt.Sprint(req["title"]), "Clean up backfill BF-5") ||
		fmt.Sprint(req["labels"]) != "[bfaudit]" || fmt.Sprint(req["assignees"]) != "[alice]" ||
		!strings.Contains(fmt.Sprint(req["body"]), "<!-- bfaudit:issue v1") {
		t.Errorf("create = %v", create)
	}
	closing := find(fmt.Sprintf("close #%d for BF-1: nothing left open", bf1.number))
	req, _ = closing["request"].(map[string]any)
	if closing["method"] != "PATCH" || closing["path"] != fmt.Sprintf("/repos/acme/data-platform/issues/%d", bf1.number) ||
		req["state"] != "closed" || req["state_reason"] != "completed" || closing["issue"] != float64(bf1.number) {
		t.Errorf("close = %v", closing)
	}
	comment := find(fmt.Sprintf("comment on #%d for BF-1", bf1.number))
	req, _ = comment["request"].(map[string]any)
	if comment["path"] != fmt.Sprintf("/repos/acme/data-platform/issues/%d/comments", bf1.number) || !strings.Contains(fmt.Sprint(req["body"]), "nothing is left open") {
		t.Errorf("comment = %v", comment)
	}
	edit := find("edit #")
	req, _ = edit["request"].(map[string]any)
	if !strings.Contains(fmt.Sprint(req["body"]), "- [ ] **BF007**") {
		t.Errorf("edit = %v", edit)
	}
	if strings.Contains(out.String(), testToken) {
		t.Error("dry-run output contains the token")
	}
}

// Nothing but the plan goes to the dry-run writer: a run with nothing to
// write leaves it empty.
func TestDryRunWriterHoldsOnlyThePlan(t *testing.T) {
	f := newFakeGitHub(t)
	live, _ := newTestSink(t, f)
	e := threeBackfills()
	runSync(t, live, e)
	dry, out := newTestSink(t, f, func(c *Config) { c.DryRun = true })
	runSync(t, dry, e)
	if out.Len() != 0 {
		t.Errorf("dry run with nothing to write wrote:\n%s", out)
	}
}

func TestTokenNeverInErrorsOrOutput(t *testing.T) {
	f := newFakeGitHub(t)
	s, out := newTestSink(t, f)
	f.intercept = func(int, *http.Request) (int, http.Header, string, bool) {
		return http.StatusBadGateway, nil, `{"message":"Server Error"}`, true
	}
	_, err := s.Sync(t.Context(), threeBackfills().report())
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err = %v", err)
	}
	cfg := Config{Repo: "a/b", Token: testToken}
	for name, text := range map[string]string{
		"error": err.Error(), "output": out.String(),
		"config %v": fmt.Sprintf("%v", cfg), "config %+v": fmt.Sprintf("%+v", cfg), "config %#v": fmt.Sprintf("%#v", cfg),
	} {
		if strings.Contains(text, testToken) {
			t.Errorf("%s contains the token: %s", name, text)
		}
	}

	f.token = "another-token" // the fake now refuses ours
	f.intercept = nil
	_, err = s.Sync(t.Context(), threeBackfills().report())
	if err == nil || strings.Contains(err.Error(), testToken) || !strings.Contains(err.Error(), "401") {
		t.Errorf("bad credentials error = %v", err)
	}
}

func TestNewNeedsAToken(t *testing.T) {
	_, err := New(Config{Repo: "a/b", TokenEnv: "BFAUDIT_UNSET_TOKEN_VAR"}, nil, WithGetenv(func(string) string { return "" }))
	if err == nil || !strings.Contains(err.Error(), "$BFAUDIT_UNSET_TOKEN_VAR") {
		t.Errorf("err = %v, want it to name the variable", err)
	}
	if _, err := New(Config{Repo: "a/b", DryRun: true}, nil, WithGetenv(func(string) string { return "" })); err != nil {
		t.Errorf("dry run without a token: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // "" for valid
	}{
		{"defaults", Config{Repo: "acme/data"}, ""},
		{"enterprise", Config{Repo: "acme/data", BaseURL: "https://ghe.example.com/"}, ""},
		{"no repo", Config{}, "github.repo"},
		{"repo without owner", Config{Repo: "data"}, "github.repo"},
		{"same labels", Config{Repo: "a/b", Label: "x", WaiverLabel: "X"}, "github.waiver_label"},
		{"bad base url", Config{Repo: "a/b", BaseURL: "ghe.example.com"}, "github.base_url"},
		{"credentials in base url", Config{Repo: "a/b", BaseURL: "https://u:secret@ghe.example.com"}, "github.base_url"},
		{"negative wait", Config{Repo: "a/b", RateLimitWait: durationPtr(-1)}, "github.rate_limit_wait"},
		{"negative write interval", Config{Repo: "a/b", WriteInterval: durationPtr(-time.Second)}, "github.write_interval"},
		{"zero waits", Config{Repo: "a/b", RateLimitWait: durationPtr(0), WriteInterval: durationPtr(0)}, ""},
		{"accept_days 0", Config{Repo: "a/b", AcceptDays: intPtr(0)}, "github.accept_days"},
		{"accept_days negative", Config{Repo: "a/b", AcceptDays: intPtr(-3)}, "github.accept_days"},
		{"accept_days too far", Config{Repo: "a/b", AcceptDays: intPtr(1 << 40)}, "github.accept_days"},
		{"accept_from", Config{Repo: "a/b", AcceptFrom: []string{"alice", "acme/platform-leads"}}, ""},
		{"accept_from a managed user", Config{Repo: "a/b", AcceptFrom: []string{"alice_acme"}}, ""},
		{"accept_from not a login", Config{Repo: "a/b", AcceptFrom: []string{"alice", "@bob"}}, "github.accept_from[1]"},
		{"accept_max_severity", Config{Repo: "a/b", AcceptMaxSeverity: "critical"}, ""},
		{"accept_max_severity unknown", Config{Repo: "a/b", AcceptMaxSeverity: "severe"}, "github.accept_max_severity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want it to name %s", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "secret"):
				t.Errorf("error leaks the URL password: %v", err)
			}
		})
	}
	c := Config{Repo: "a/b"}
	_ = c.Validate()
	if c.Label != "bfaudit" || c.WaiverLabel != "bfaudit:accepted" || c.TokenEnv != "GITHUB_TOKEN" || *c.RateLimitWait != 5*time.Minute ||
		*c.WriteInterval != time.Second || *c.AcceptDays != 90 || c.AcceptMaxSeverity != "high" {
		t.Errorf("defaults not filled: %v", c)
	}
	// Zero is zero, not "use the default" (a GitHub Enterprise with its
	// own limits runs without pauses).
	c = Config{Repo: "a/b", RateLimitWait: durationPtr(0), WriteInterval: durationPtr(0)}
	_ = c.Validate()
	if *c.RateLimitWait != 0 || *c.WriteInterval != 0 {
		t.Errorf("0 became %s and %s", *c.RateLimitWait, *c.WriteInterval)
	}
}

func intPtr(i int) *int { return &i }

func TestTemplateOverride(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/title.tmpl"
	if err := os.WriteFile(path, []byte("[cleanup] {{plain .ID}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f, func(c *Config) { c.TitleTemplate = "@" + path })
	runSync(t, s, newEstate().backfill("BF-1", "").finding("BF-1", "BF005", model.StepRetired, uri(1)))
	if got := issueFor(t, f, "BF-1").title; got != "[cleanup] BF-1" {
		t.Errorf("title = %q", got)
	}
	_, err := New(Config{Repo: "a/b", Token: "x", BodyTemplate: "@" + dir + "/missing.tmpl"}, nil)
	if err == nil || !strings.Contains(err.Error(), "github.body_template") {
		t.Errorf("err = %v, want it to name github.body_template", err)
	}
}
