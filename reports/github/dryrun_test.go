package github

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

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
	text := out.String()
	for _, want := range []string{
		"[dry-run] POST /repos/acme/data-platform/issues  (create issue for BF-5)",
		"  title: Clean up backfill BF-5",
		"  labels: bfaudit",
		"  assignees: alice",
		fmt.Sprintf("[dry-run] PATCH /repos/acme/data-platform/issues/%d  (close #%d for BF-1: nothing left open)", bf1.number, bf1.number),
		"  state: closed (completed)",
		fmt.Sprintf("[dry-run] POST /repos/acme/data-platform/issues/%d/comments", bf1.number),
		"nothing is left open",
		"(edit #",
		"  | - [ ] **BF007**",
		"  | <!-- bfaudit:issue v1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("dry-run output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, testToken) {
		t.Error("dry-run output contains the token")
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
		{"negative wait", Config{Repo: "a/b", RateLimitWait: -1}, "github.rate_limit_wait"},
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
	if c.Label != "bfaudit" || c.WaiverLabel != "bfaudit:accepted" || c.TokenEnv != "GITHUB_TOKEN" || c.RateLimitWait.Minutes() != 5 {
		t.Errorf("defaults not filled: %v", c)
	}
}

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
