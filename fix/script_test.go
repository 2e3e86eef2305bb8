package fix_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// stubbed are the programs a script may call; the tests put a stub of
// each first on PATH.
var stubbed = []string{"bq", "gcloud", "kubectl", "airflow", "rabbitmqadmin", "amtool", "psql", "dbt", "curl",
	"kafka-consumer-groups", "jq", "yq", "jupyter"}

// execScript runs a rendered script with sh, every program it calls a
// stub first on PATH that logs its name and arguments, a line each, and
// swallows its stdin; a call whose line starts with fail exits 1. The
// environment holds PATH and env only (no token from the caller's). It
// returns the log, stderr and the exit code, and fails if a file named
// pwned appears.
func execScript(t *testing.T, script, fail string, env ...string) (ran, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range stubbed {
		stub := "#!/bin/sh\nline=" + p + "\nfor a in \"$@\"; do line=\"$line $a\"; done\nprintf '%s\\n' \"$line\" >> \"$REC\"\ncat > /dev/null\n" +
			"case \"$line\" in \"$FAIL\"*) [ -n \"$FAIL\" ] && exit 1 ;; esac\nexit 0\n"
		if err := os.WriteFile(filepath.Join(bin, p), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "REC=" + filepath.Join(dir, "rec"), "FAIL=" + fail}, env...)
	cmd.Stdin = strings.NewReader("")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("script: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatalf("a message added a live line:\n%s", script)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "rec"))
	return string(data), errb.String(), code
}

// runScript runs a script that must end well (every command ran) and
// returns the log of the programs it called.
func runScript(t *testing.T, script string) string {
	t.Helper()
	ran, stderr, code := execScript(t, script, "")
	if code != 0 {
		t.Fatalf("script exit %d:\n%s\n%s", code, stderr, script)
	}
	return ran
}

// liveCommands are the script's commands that run (each in its bf_can
// block), in order.
func liveCommands(script string) []string {
	var out []string
	for _, block := range strings.Split(script, "; then ( set -eu\n")[1:] {
		cmd, _, _ := strings.Cut(block, "\n); bf_ran $?; fi\n")
		out = append(out, cmd)
	}
	return out
}

// urgentEstate is BF-1234 after its replay, as in the quickstart: the
// replay account's binding and key linger (revoke, disable: access
// revoked; delete the key: retired), a flag made for the backfill (archive
// it through Unleash: normalized, needs UNLEASH_TOKEN) and its dashboard
// (delete it through Grafana: normalized) are still there.
func urgentEstate() *model.Estate {
	est := iamEstate(nil)
	est.Artifacts = append(est.Artifacts,
		model.Artifact{Kind: model.KindFeatureFlag, System: "unleash", Source: "unleash", State: model.StateEnabled,
			Scope: "default/bf-1234-debug", URI: "unleash://unleash/projects/default/features/bf-1234-debug", Name: "bf-1234-debug", BackfillID: "BF-1234",
			Attributes: model.TagsOf(map[string]string{model.AttrEnabledIn: "production", model.AttrProduction: "true", model.AttrProject: "default"})},
		model.Artifact{Kind: model.KindDashboard, System: "grafana", Source: "gf", State: model.StateActive, Scope: "analytics/d-1",
			URI: "grafana://gf/dashboards/d-1", Name: "BF-1234 monitor", BackfillID: "BF-1234",
			Attributes: model.TagsOf(map[string]string{"uid": "d-1", model.AttrTemporary: "true", model.AttrAPIURL: "https://grafana.internal"})})
	est.Coverage = append(est.Coverage, model.Coverage{Source: "unleash", Status: model.CoverageOK}, model.Coverage{Source: "gf", Status: model.CoverageOK})
	return est
}

func urgentScript(t *testing.T) string {
	t.Helper()
	p, err := fix.NewPlan(fixtest.Inputs(t, urgentEstate()), "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fix.WriteScript(&b, p); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-n", "-c", b.String()).CombinedOutput(); err != nil {
		t.Fatalf("sh -n: %v %s\n%s", err, out, b.String())
	}
	return b.String()
}

const (
	revokeCall  = "gcloud projects remove-iam-policy-binding --member=serviceAccount:" + iamSA
	disableCall = "gcloud iam service-accounts keys disable --iam-account=" + iamSA
	deleteCall  = "gcloud iam service-accounts keys delete --iam-account=" + iamSA
	grafanaCall = "curl -fsS -X DELETE -H Authorization: Bearer tok-g https://grafana.internal/api/dashboards/uid/d-1"
)

// With no UNLEASH_TOKEN the access removals still run, first; the flag's
// archive is skipped with a line saying the token is not set; the
// dashboard's deletion after it still runs; the key's deletion, which
// relies on the normalized step being done, is skipped saying so; the
// script exits non-zero and ends listing what did not run.
func TestScriptGoesOnWithoutAToken(t *testing.T) {
	script := urgentScript(t)
	ran, stderr, code := execScript(t, script, "", "UNLEASH_URL=https://unleash.internal", "GRAFANA_TOKEN=tok-g")
	lines := strings.Split(strings.TrimSpace(ran), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], revokeCall) || !strings.HasPrefix(lines[1], disableCall) || lines[2] != grafanaCall {
		t.Errorf("ran:\n%s\nwant the revoke, the key disable, then the dashboard's deletion\nstderr:\n%s\nscript:\n%s", ran, stderr, script)
	}
	if strings.Contains(ran, "unleash") || strings.Contains(ran, deleteCall) {
		t.Errorf("the archive without a token, or the key deletion after it, ran:\n%s", ran)
	}
	if code == 0 {
		t.Errorf("exit 0 although commands did not run:\n%s", stderr)
	}
	for _, want := range []string{
		"bfaudit fix: SKIPPED BF017 archive_flag: archive flag bf-1234-debug in project default: UNLEASH_TOKEN is not set\n",
		"bfaudit fix: SKIPPED BF004 delete_key: delete key k1 of " + iamSA + ": step normalized did not complete\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.HasSuffix(stderr, "bfaudit fix: 3 command(s) ran; these did not:\n  BF017 archive_flag: archive flag bf-1234-debug in project default: skipped, UNLEASH_TOKEN is not set\n"+
		"  BF004 delete_key: delete key k1 of "+iamSA+": skipped, step normalized did not complete\n") {
		t.Errorf("the last lines should list what did not run:\n%s", stderr)
	}

	// With every token, everything runs and the script ends well.
	ran, stderr, code = execScript(t, script, "", "UNLEASH_URL=https://unleash.internal", "GRAFANA_TOKEN=tok-g", "UNLEASH_TOKEN=tok-u")
	if code != 0 || !strings.Contains(ran, "https://unleash.internal/api/admin/projects/default/features/bf-1234-debug") || !strings.Contains(ran, deleteCall) ||
		!strings.HasSuffix(stderr, "bfaudit fix: 5 command(s) ran, none failed or skipped\n") {
		t.Errorf("with every token: exit %d\n%s\n%s", code, ran, stderr)
	}
}

// A command that fails (the binding's removal) is reported and the script
// goes on: the key is still disabled, the normalized step still runs; the
// key's deletion, which relies on access being revoked, is skipped; the
// exit code is non-zero and the end lists the failure.
func TestScriptGoesOnPastAFailure(t *testing.T) {
	script := urgentScript(t)
	ran, stderr, code := execScript(t, script, "gcloud projects remove-iam-policy-binding",
		"UNLEASH_URL=https://unleash.internal", "GRAFANA_TOKEN=tok-g", "UNLEASH_TOKEN=tok-u")
	for _, want := range []string{revokeCall, disableCall, "/api/admin/projects/default/features/bf-1234-debug", grafanaCall} {
		if !strings.Contains(ran, want) {
			t.Errorf("%q did not run past the failure:\n%s\n%s", want, ran, stderr)
		}
	}
	if strings.Contains(ran, deleteCall) {
		t.Errorf("the key was deleted although access was not revoked:\n%s", ran)
	}
	if code == 0 || !strings.Contains(stderr, "bfaudit fix: FAILED BF003 revoke_grant: remove roles/bigquery.dataEditor from serviceAccount:bf-1234@proj.iam.gserviceaccount.com in project proj (exit 1)\n") ||
		!strings.HasSuffix(stderr, "  BF003 revoke_grant: remove roles/bigquery.dataEditor from serviceAccount:bf-1234@proj.iam.gserviceaccount.com in project proj: failed (exit 1)\n"+
			"  BF004 delete_key: delete key k1 of "+iamSA+": skipped, step access-revoked did not complete\n") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// The access removals are the script's first commands, before the
// rebuilds and deletes of the steps the lifecycle puts before them.
func TestScriptRevokesFirst(t *testing.T) {
	live := liveCommands(urgentScript(t))
	if len(live) != 5 || !strings.HasPrefix(live[0], strings.ReplaceAll(revokeCall, "Authorization: ", "")) || !strings.HasPrefix(live[1], disableCall) ||
		!strings.Contains(live[2]+live[3], "/api/admin/projects/default/features/bf-1234-debug") || !strings.HasPrefix(live[4], deleteCall) {
		t.Errorf("live commands:\n%s", strings.Join(live, "\n"))
	}
}

// withGuard adds a guard flag still on after the replay: BF017 (the flag
// lingers: archive it) and BF018 (its side effects held back: a by-hand
// check) on one flag.
func withGuard(est *model.Estate) *model.Estate {
	est.Artifacts = append(est.Artifacts, model.Artifact{Kind: model.KindFeatureFlag, System: "unleash", Source: "unleash", State: model.StateEnabled,
		Scope: "default/bf-1234-suppress-emails", URI: "unleash://unleash/projects/default/features/bf-1234-suppress-emails", Name: "bf-1234-suppress-emails",
		BackfillID: "BF-1234", Attributes: model.TagsOf(map[string]string{model.AttrEnabledIn: "production", model.AttrProduction: "true", model.AttrProject: "default"})})
	return est
}

// The guard flag is archived only after BF018's by-hand check: its
// archive is commented out, waiting for it, while the rest of the plan
// (the access removals, the other flag's archive, the dashboard) stays
// live.
func TestCheckHoldsOnlyItsFlag(t *testing.T) {
	in := fixtest.Inputs(t, withGuard(urgentEstate()))
	rules := map[string]bool{}
	for _, f := range in.Report.Findings {
		if strings.HasSuffix(f.ArtifactURI, "bf-1234-suppress-emails") {
			rules[f.RuleID] = true
		}
	}
	if !rules["BF018"] {
		t.Fatalf("the guard flag should be BF018's: %v", rules)
	}
	p, err := fix.NewPlan(in, "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	_ = fix.WriteScript(&b, p)
	s := b.String()
	live := strings.Join(liveCommands(s), "\n")
	if strings.Contains(live, "bf-1234-suppress-emails") {
		t.Errorf("the guard flag is archived before the by-hand check:\n%s", s)
	}
	for _, want := range []string{revokeCall, disableCall, "/features/bf-1234-debug", "/api/dashboards/uid/d-1"} {
		if !strings.Contains(live, want) {
			t.Errorf("%q should stay live:\n%s", want, live)
		}
	}
	if rules["BF017"] && !strings.Contains(s, "# archive_flag: archive flag bf-1234-suppress-emails in project default\n"+
		"# waits: by-hand check BF018 on this feature flag first (its TODO at step normalized); run bfaudit fix again once it is done\n# curl ") {
		t.Errorf("the guard's archive should be commented out, waiting for the check:\n%s", s)
	}
}

// One finding per flag: when BF018 carries BF017's archive itself, the
// archive still waits for the check, whichever order the items come in.
func TestCheckHoldsTheArchiveItsFindingCarries(t *testing.T) {
	uri := "unleash://unleash/projects/default/features/bf-1234-suppress-emails"
	check := fix.Item{RuleID: "BF018", ArtifactURI: uri, Human: &remedy.Human{Step: model.StepNormalized, What: "check", Check: true}}
	archive := fix.Item{RuleID: "BF018", ArtifactURI: uri, Action: &remedy.Action{Name: remedy.ArchiveFlag, Step: model.StepNormalized}}
	other := fix.Item{RuleID: "BF017", ArtifactURI: "unleash://unleash/projects/default/features/other", Action: &remedy.Action{Name: remedy.ArchiveFlag}}
	for _, items := range [][]fix.Item{{check, archive, other}, {archive, other, check}} {
		fix.HoldForChecks(items)
		for _, it := range items {
			switch {
			case it.Action != nil && it.ArtifactURI == uri && !strings.HasPrefix(it.Waits, "by-hand check BF018 on this artifact first"):
				t.Errorf("the archive BF018 carries does not wait: %q", it.Waits)
			case it.ArtifactURI != uri && it.Waits != "":
				t.Errorf("another flag's archive waits: %q", it.Waits)
			}
		}
	}
}
