package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// valueName is what --help may show after a flag: a placeholder such as
// FILE or FORMAT=PATH, never pflag's type name (string, strings) or a
// phrase a backquote in the usage turned into one (`bfaudit collect --out`).
var valueName = regexp.MustCompile(`^[A-Z][A-Z_]*(=[A-Z][A-Z_]*)?$`)

func TestHelpValueNames(t *testing.T) {
	root := newRoot(&globals{})
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		check := func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			name, _ := pflag.UnquoteUsage(f)
			if name != "" && !valueName.MatchString(name) {
				t.Errorf("%s --%s shows %q as its value in --help; put the placeholder in backquotes (`FILE`)", cmd.CommandPath(), f.Name, name)
			}
		}
		cmd.LocalFlags().VisitAll(check)
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(root)
}

func TestAuditHelpShowsFromFile(t *testing.T) {
	code, out, stderr := bfaudit(t, "audit", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"--from FILE", "-o, --output FORMAT=PATH", "--fail-on SEVERITY", "--deadline DURATION", "-c, --config FILE", "--now TIME"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--from bfaudit") {
		t.Errorf("a phrase is shown as --from's value:\n%s", out)
	}
}
