// Package githubactions_test runs the shell steps of the composite action
// (action.yml at the repository root) the way a runner does, with stand-ins
// for gh and bfaudit, and checks that the action fetches the archive the
// release configuration (.goreleaser.yaml) makes. actionlint checks the
// workflows in this directory and the action's inputs (make actionlint).
package githubactions_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

type action struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Author      string `json:"author"`
	Branding    struct {
		Icon  string `json:"icon"`
		Color string `json:"color"`
	} `json:"branding"`
	Inputs map[string]struct {
		Description string `json:"description"`
		Default     string `json:"default"`
		Required    bool   `json:"required"`
	} `json:"inputs"`
	Outputs map[string]struct {
		Description string `json:"description"`
		Value       string `json:"value"`
	} `json:"outputs"`
	Runs struct {
		Using string `json:"using"`
		Steps []step `json:"steps"`
	} `json:"runs"`
}

type step struct {
	Name  string            `json:"name"`
	ID    string            `json:"id"`
	If    string            `json:"if"`
	Shell string            `json:"shell"`
	Run   string            `json:"run"`
	Uses  string            `json:"uses"`
	With  map[string]string `json:"with"`
	Env   map[string]string `json:"env"`
}

func loadAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.UnmarshalStrict(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml: runs.using %q, want composite", a.Runs.Using)
	}
	return a
}

func (a action) step(t *testing.T, id string) step {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("action.yml has no step with id %q", id)
	return step{}
}

var expr = regexp.MustCompile(`\$\{\{\s*([a-z]+)\.([a-z0-9_.-]+)\s*\}\}`)

// runStep runs a bash step as the runner does (bash --noprofile --norc -eo
// pipefail), its env's ${{ inputs.X }} and ${{ steps.X.outputs.Y }} filled
// from the given values or the inputs' defaults. It returns the exit code
// and the combined output.
func runStep(t *testing.T, a action, s step, values map[string]string, env []string) (int, string) {
	t.Helper()
	if s.Shell != "bash" {
		t.Fatalf("step %s: shell %q; the runner's bash is what this test runs", s.ID, s.Shell)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Env = append(os.Environ(), env...)
	for k, v := range s.Env {
		v = expr.ReplaceAllStringFunc(v, func(m string) string {
			sub := expr.FindStringSubmatch(m)
			key := sub[1] + "." + sub[2]
			if val, ok := values[key]; ok {
				return val
			}
			if sub[1] == "inputs" {
				if in, ok := a.Inputs[sub[2]]; ok {
					return in.Default
				}
			}
			t.Fatalf("step %s: env %s uses %s, which the test does not provide", s.ID, k, m)
			return ""
		})
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		t.Fatal(err)
	}
	return 0, string(out)
}

func writeExec(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestRunStepsAreValidBash(t *testing.T) {
	a := loadAction(t)
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		if out, err := exec.Command("bash", "-n", "-c", s.Run).CombinedOutput(); err != nil {
			t.Errorf("step %q: %v\n%s", s.Name, err, out)
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script; pass it through env (script injection)", s.Name)
		}
		if sc, err := exec.LookPath("shellcheck"); err == nil {
			cmd := exec.Command(sc, "--shell=bash", "-")
			cmd.Stdin = strings.NewReader(s.Run)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("step %q: shellcheck:\n%s", s.Name, out)
			}
		}
	}
}

// release makes what a GitHub release of bfaudit holds: the archive for
// linux/amd64 with a stand-in binary, and checksums.txt.
func release(t *testing.T, dir, version string) (archive string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	bin := []byte("#!/bin/sh\necho \"bfaudit v" + version + "\"\n")
	for _, f := range []struct {
		name string
		body []byte
		mode int64
	}{{"README.md", []byte("readme"), 0o644}, {"bfaudit", bin, 0o755}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	archive = "bfaudit_" + version + "_linux_amd64.tar.gz"
	if err := os.WriteFile(filepath.Join(dir, archive), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	other := sha256.Sum256([]byte("other"))
	checksums := hex.EncodeToString(other[:]) + "  bfaudit_" + version + "_darwin_arm64.tar.gz\n" +
		hex.EncodeToString(sum[:]) + "  " + archive + "\n"
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(checksums), 0o644); err != nil {
		t.Fatal(err)
	}
	return archive
}

// fakeGH answers the two gh calls the install step makes from a directory
// standing in for the release, and logs them.
const fakeGH = `#!/bin/bash
set -eu
echo "gh $*" >> "$FAKE_LOG"
case "$1 $2" in
"release view") echo "v$FAKE_VERSION" ;;
"release download")
	shift 3
	dir= pats=()
	while [ $# -gt 0 ]; do
		case "$1" in
		--dir) dir=$2; shift 2 ;;
		--pattern) pats+=("$2"); shift 2 ;;
		*) shift ;;
		esac
	done
	for p in "${pats[@]}"; do
		[ -e "$FAKE_RELEASE/$p" ] || { echo "no asset $p" >&2; exit 1; }
		cp "$FAKE_RELEASE/$p" "$dir/"
	done ;;
*) echo "unexpected gh call: $*" >&2; exit 1 ;;
esac
`

func TestInstallStep(t *testing.T) {
	a := loadAction(t)
	install := a.step(t, "install")
	setup := func(t *testing.T) (rel string, env []string, ghPath string) {
		dir := t.TempDir()
		bin, rel, runner := filepath.Join(dir, "bin"), filepath.Join(dir, "release"), filepath.Join(dir, "runner")
		for _, d := range []string{bin, rel, runner} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		writeExec(t, filepath.Join(bin, "gh"), fakeGH)
		ghPath = filepath.Join(dir, "github_path")
		env = []string{
			"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
			"RUNNER_OS=Linux", "RUNNER_ARCH=X64", "RUNNER_TEMP=" + runner,
			"GITHUB_PATH=" + ghPath, "FAKE_RELEASE=" + rel, "FAKE_VERSION=1.2.3",
			"FAKE_LOG=" + filepath.Join(dir, "gh.log"),
		}
		return rel, env, ghPath
	}

	t.Run("latest release, checksum verified", func(t *testing.T) {
		rel, env, ghPath := setup(t)
		release(t, rel, "1.2.3")
		code, out := runStep(t, a, install, map[string]string{"github.token": "t"}, env)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if !strings.Contains(out, "bfaudit v1.2.3") {
			t.Errorf("the installed binary did not run:\n%s", out)
		}
		p, err := os.ReadFile(ghPath)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(p)), "bfaudit")); err != nil {
			t.Errorf("GITHUB_PATH %q does not hold bfaudit: %v", p, err)
		}
	})

	t.Run("a pinned version skips the lookup", func(t *testing.T) {
		rel, env, _ := setup(t)
		release(t, rel, "1.0.0")
		code, out := runStep(t, a, install, map[string]string{"github.token": "t", "inputs.version": "v1.0.0"}, env)
		if code != 0 || !strings.Contains(out, "bfaudit v1.0.0") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		log, _ := os.ReadFile(env[len(env)-1][len("FAKE_LOG="):])
		if strings.Contains(string(log), "release view") {
			t.Errorf("looked up the latest release although v1.0.0 was asked for:\n%s", log)
		}
	})

	t.Run("a tampered archive is refused", func(t *testing.T) {
		rel, env, ghPath := setup(t)
		archive := release(t, rel, "1.2.3")
		f, err := os.OpenFile(filepath.Join(rel, archive), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("x"))
		f.Close()
		code, out := runStep(t, a, install, map[string]string{"github.token": "t"}, env)
		if code == 0 {
			t.Fatalf("installed a tampered archive:\n%s", out)
		}
		if p, _ := os.ReadFile(ghPath); len(p) > 0 {
			t.Errorf("GITHUB_PATH was set to %q after a failed check", p)
		}
	})

	t.Run("an archive the checksums do not list is refused", func(t *testing.T) {
		rel, env, _ := setup(t)
		release(t, rel, "1.2.3")
		if err := os.WriteFile(filepath.Join(rel, "checksums.txt"), []byte("0000  other.tar.gz\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out := runStep(t, a, install, map[string]string{"github.token": "t"}, env)
		if code == 0 || !strings.Contains(out, "is not listed in the checksums") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})

	t.Run("an unsupported runner says so", func(t *testing.T) {
		_, env, _ := setup(t)
		env = append(env, "RUNNER_OS=Windows")
		code, out := runStep(t, a, install, map[string]string{"github.token": "t"}, env)
		if code == 0 || !strings.Contains(out, "not Windows") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
}

// fakeBfaudit writes each --output FORMAT=PATH file (unless FAKE_NO_REPORT),
// logs its arguments, and exits FAKE_CODE.
const fakeBfaudit = `#!/bin/bash
printf '%s\n' "$@" > "$FAKE_ARGS"
while [ $# -gt 0 ]; do
	if [ "$1" = --output ] && [ -z "${FAKE_NO_REPORT:-}" ]; then
		f=${2%%=*} p=${2#*=}
		echo "# bfaudit $f report" > "$p"
	fi
	shift
done
exit "$FAKE_CODE"
`

func TestAuditStep(t *testing.T) {
	a := loadAction(t)
	audit := a.step(t, "audit")
	for _, tc := range []struct {
		name      string
		code      string
		noReport  bool
		summary   string
		warning   string
		wantSarif bool
	}{
		{"clean", "0", false, "# bfaudit markdown report", "", true},
		{"findings", "1", false, "# bfaudit markdown report", "::warning::bfaudit: findings", true},
		{"incomplete", "3", false, "# bfaudit markdown report", "::warning::bfaudit: the audit is incomplete", true},
		{"bad config", "2", true, "bfaudit wrote no report (exit 2)", "::error::bfaudit exited 2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			if err := os.Mkdir(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			writeExec(t, filepath.Join(bin, "bfaudit"), fakeBfaudit)
			summary, output, args := filepath.Join(dir, "summary"), filepath.Join(dir, "output"), filepath.Join(dir, "args")
			env := []string{
				"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
				"GITHUB_STEP_SUMMARY=" + summary, "GITHUB_OUTPUT=" + output,
				"FAKE_ARGS=" + args, "FAKE_CODE=" + tc.code,
			}
			if tc.noReport {
				env = append(env, "FAKE_NO_REPORT=1")
			}
			out := filepath.Join(dir, "reports")
			code, log := runStep(t, a, audit, map[string]string{
				"inputs.args": "--deadline 25m --fail-on medium", "inputs.output-dir": out,
			}, env)
			if code != 0 {
				t.Fatalf("the step failed (exit %d) before the reports could be uploaded:\n%s", code, log)
			}
			if tc.warning != "" && !strings.Contains(log, tc.warning) {
				t.Errorf("log lacks %q:\n%s", tc.warning, log)
			}
			got, _ := os.ReadFile(args)
			want := "audit\n--config\nbfaudit.yaml\n--format\ntable,markdown,json,html,sarif\n"
			if !strings.HasPrefix(string(got), want) || !strings.HasSuffix(string(got), "--deadline\n25m\n--fail-on\nmedium\n") {
				t.Errorf("bfaudit got arguments:\n%s", got)
			}
			s, _ := os.ReadFile(summary)
			if !strings.Contains(string(s), tc.summary) {
				t.Errorf("job summary %q lacks %q", s, tc.summary)
			}
			o, _ := os.ReadFile(output)
			if !strings.Contains(string(o), "exit-code="+tc.code+"\n") {
				t.Errorf("step outputs %q lack exit-code=%s", o, tc.code)
			}
			if gotSarif := strings.Contains(string(o), "sarif="+out+"/report.sarif\n"); gotSarif != tc.wantSarif {
				t.Errorf("sarif output set = %v, want %v (outputs %q)", gotSarif, tc.wantSarif, o)
			}
			for _, f := range []string{"report.md", "report.json", "report.html", "report.sarif"} {
				if _, err := os.Stat(filepath.Join(out, f)); (err == nil) == tc.noReport {
					t.Errorf("%s: exists = %v", f, err == nil)
				}
			}
		})
	}
}

func TestFailStepEndsWithBfauditsCode(t *testing.T) {
	a := loadAction(t)
	var fail step
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.If, "inputs.fail ==") {
			fail = s
		}
	}
	if fail.Run == "" {
		t.Fatal("no step fails on bfaudit's exit code")
	}
	for _, s := range a.Runs.Steps {
		if s.Uses != "" && !strings.HasPrefix(s.If, "always()") {
			t.Errorf("step %q (%s) runs only on success; the reports must upload after findings too", s.Name, s.Uses)
		}
	}
	if code, _ := runStep(t, a, fail, map[string]string{"steps.audit.outputs.exit-code": "3"}, nil); code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
}
