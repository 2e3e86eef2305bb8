// Package remedytest runs the commands a remedy writes under sh with every
// system's program recorded instead of run, for the tests of each system's
// commands: what each program was called with, and that no hostile name
// broke out of its quoting.
package remedytest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// HostileNames are names a system may hand back that a careless quoting
// would let out of their word: quotes, blanks, command separators and
// substitutions, globs, a leading dash, a newline, the SQL here-document's
// delimiter, non-ASCII.
var HostileNames = []string{
	"plain_name",
	"it's",
	"a b",
	"x;touch pwned-semicolon",
	"$(touch pwned-dollar)",
	"`touch pwned-backtick`",
	"line1\ntouch pwned-newline",
	"-rf",
	`"dq"`,
	`back\slash`,
	"*",
	"~root",
	"#hash",
	`a'b"c$d`,
	"tab\there",
	"name=with=eq",
	"BFAUDIT_SQL",
	"x\nBFAUDIT_SQL\ntouch pwned-heredoc",
	"x\n\\! touch pwned-psql",
	"é ü ø",
	"'",
	"''",
	"%2F",
	"",
}

// shPrograms are the commands remedies run, replaced in tests by a shell
// function that records its arguments (NUL-terminated, a call per record)
// instead of touching a system.
var shPrograms = []string{"bq", "gcloud", "kubectl", "airflow", "rabbitmqadmin", "amtool", "psql", "curl", "aws"}

// Call is one recorded invocation: the program, its arguments, and the
// stdin it was given.
type Call struct {
	Prog  string
	Args  []string
	Stdin string
}

// RunShell runs script with sh in a fresh directory, every program of
// shPrograms recorded instead of run (real jq and mktemp are used), and
// returns the calls. It fails the test if the script leaves a file whose
// name starts with "pwned" (a name broke out of its quoting).
func RunShell(t *testing.T, script string) []Call {
	t.Helper()
	return RunShellWith(t, script, `{"etag":"e1","access":[]}`)
}

// RunShellWith is RunShell with the dataset bq show prints.
func RunShellWith(t *testing.T, script, dataset string) []Call {
	t.Helper()
	dir := t.TempDir()
	rec := filepath.Join(dir, "calls")
	var prelude strings.Builder
	prelude.WriteString("set -eu\n")
	// Each call: its program and args NUL-terminated, then its stdin (or
	// nothing when a terminal), then a record separator.
	prelude.WriteString(`record() { for a in "$@"; do printf '%s\0' "$a"; done >> "$REC"; printf '\1' >> "$REC"; cat >> "$REC"; printf '\2' >> "$REC"; }` + "\n")
	for _, p := range shPrograms {
		prelude.WriteString(p + `() { record ` + p + ` "$@"; }` + "\n")
	}
	// psql's database comes in PGDATABASE.
	prelude.WriteString(`psql() { record psql "PGDATABASE=${PGDATABASE-}" "$@"; }` + "\n")
	// bq show prints a dataset for the ACL pipeline; bq update and
	// gcloud record the file they are handed as their stdin.
	prelude.WriteString(`fileArg() { f=; prev=; for a in "$@"; do case "$a" in --condition-from-file=*) f=${a#--condition-from-file=};; esac; [ "$prev" = --source ] && f=$a; prev=$a; done; printf '%s' "$f"; }` + "\n")
	prelude.WriteString(`bq() { case "$1" in show) record bq "$@" </dev/null; cat "$DATASET";; update) record bq "$@" < "$(fileArg "$@")";; *) record bq "$@" </dev/null;; esac; }` + "\n")
	prelude.WriteString(`gcloud() { f=$(fileArg "$@"); if [ -n "$f" ]; then record gcloud "$@" < "$f"; else record gcloud "$@"; fi; }` + "\n")
	// aws sts get-caller-identity prints the account a test names in
	// BFAUDIT_TEST_AWS_ACCOUNT, for commands that check they run in theirs.
	prelude.WriteString(`aws() { record aws "$@"; if [ "$1 $2" = "sts get-caller-identity" ]; then printf '%s\n' "${BFAUDIT_TEST_AWS_ACCOUNT-}"; fi; }` + "\n")
	cmd := exec.Command("sh", "-c", prelude.String()+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "REC="+rec, "DATASET="+filepath.Join(dir, "dataset.json"))
	if err := os.WriteFile(filepath.Join(dir, "dataset.json"), []byte(dataset), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = strings.NewReader("")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("sh failed: %v\n%s\nscript:\n%s", err, stderr.String(), script)
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, "pwned*")); len(ents) > 0 {
		t.Fatalf("a name broke out of its quoting: %v\nscript:\n%s", ents, script)
	}
	data, err := os.ReadFile(rec)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var calls []Call
	for _, r := range strings.Split(string(data), "\x02") {
		if r == "" {
			continue
		}
		argv, stdin, _ := strings.Cut(r, "\x01")
		parts := strings.Split(strings.TrimSuffix(argv, "\x00"), "\x00")
		calls = append(calls, Call{Prog: parts[0], Args: parts[1:], Stdin: stdin})
	}
	return calls
}

// ShSyntax checks script with sh -n.
func ShSyntax(t *testing.T, script string) {
	t.Helper()
	out, err := exec.Command("sh", "-n", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("sh -n: %v: %s\nscript:\n%s", err, out, script)
	}
}

// Dashed is name as the last arguments of a command line: after "--"
// when it starts with '-', so that it is not read as an option.
func Dashed(name string) []string {
	if strings.HasPrefix(name, "-") {
		return []string{"--", name}
	}
	return []string{name}
}
