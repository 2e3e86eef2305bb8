package remedy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostileNames are names a system may hand back that a careless quoting
// would let out of their word: quotes, blanks, command separators and
// substitutions, globs, a leading dash, a newline, the SQL here-document's
// delimiter, non-ASCII.
var hostileNames = []string{
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
var shPrograms = []string{"bq", "gcloud", "kubectl", "airflow", "rabbitmqadmin", "amtool", "psql", "curl"}

// call is one recorded invocation: the program, its arguments, and the
// stdin it was given.
type call struct {
	prog  string
	args  []string
	stdin string
}

// runShell runs script with sh in a fresh directory, every program of
// shPrograms recorded instead of run (real jq and mktemp are used), and
// returns the calls. It fails the test if the script leaves a file whose
// name starts with "pwned" (a name broke out of its quoting).
func runShell(t *testing.T, script string) []call {
	t.Helper()
	return runShellWith(t, script, `{"etag":"e1","access":[]}`)
}

// runShellWith is runShell with the dataset bq show prints.
func runShellWith(t *testing.T, script, dataset string) []call {
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
	var calls []call
	for _, r := range strings.Split(string(data), "\x02") {
		if r == "" {
			continue
		}
		argv, stdin, _ := strings.Cut(r, "\x01")
		parts := strings.Split(strings.TrimSuffix(argv, "\x00"), "\x00")
		calls = append(calls, call{prog: parts[0], args: parts[1:], stdin: stdin})
	}
	return calls
}

// shSyntax checks script with sh -n.
func shSyntax(t *testing.T, script string) {
	t.Helper()
	out, err := exec.Command("sh", "-n", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("sh -n: %v: %s\nscript:\n%s", err, out, script)
	}
}

func TestQuoteArrivesIntact(t *testing.T) {
	for _, name := range hostileNames {
		t.Run(name, func(t *testing.T) {
			line := command([]string{"kubectl", "delete", "job"}, []string{Flag("--namespace", name)}, name)
			shSyntax(t, line)
			calls := runShell(t, line)
			if len(calls) != 1 {
				t.Fatalf("calls = %+v", calls)
			}
			want := []string{"delete", "job", "--namespace=" + name}
			if strings.HasPrefix(name, "-") {
				want = append(want, "--")
			}
			want = append(want, name)
			if !slices.Equal(calls[0].args, want) {
				t.Errorf("args = %q, want %q", calls[0].args, want)
			}
		})
	}
}

func TestCommentKeepsEveryLineCommented(t *testing.T) {
	for _, name := range hostileNames {
		script := Comment(command([]string{"kubectl", "delete", "job"}, nil, name))
		if calls := runShell(t, script); len(calls) != 0 {
			t.Errorf("%q: a commented-out command ran: %+v", name, calls)
		}
	}
}

func TestPsqlBlockHereDocument(t *testing.T) {
	for _, name := range hostileNames {
		t.Run(name, func(t *testing.T) {
			sql := "DROP TABLE " + Qualified("s", name) + ";"
			block := PsqlBlock(name, sql)
			shSyntax(t, block)
			calls := runShell(t, block)
			if len(calls) != 1 || calls[0].prog != "psql" {
				t.Fatalf("calls = %+v", calls)
			}
			if got := calls[0].stdin; got != sql+"\n" {
				t.Errorf("psql read %q, want %q", got, sql+"\n")
			}
			wantDB := "PGDATABASE=" + name
			if len(calls[0].args) == 0 || calls[0].args[0] != wantDB {
				t.Errorf("psql args %q, want the database first as %q", calls[0].args, wantDB)
			}
		})
	}
}

func TestHeredocDelimiterAvoidsBodyLines(t *testing.T) {
	body := "BFAUDIT_SQL\nBFAUDIT_SQL_1\nx"
	if d := heredocDelimiter("BFAUDIT_SQL", body); d != "BFAUDIT_SQL_2" {
		t.Errorf("delimiter = %q", d)
	}
}
