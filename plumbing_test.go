package bfaudit_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// plumbing is what only internal/remote and internal/redact write: anyone
// else calls them (docs/CONTRIBUTING.md, "Talking to a server").
var plumbing = []struct {
	what string
	re   *regexp.Regexp
	home []string // the folders allowed to write it
}{
	{"a capped read (remote.ReadAll, remote.CappedBody)", regexp.MustCompile(`io\.LimitReader\(`), []string{"internal/remote", "internal/safefile"}},
	{"an HTTP transport set-up (remote.NewClient)", regexp.MustCompile(`http\.Transport\{|DefaultTransport\.\(\*http\.Transport\)\.Clone\(\)`), []string{"internal/remote"}},
	{"a retry backoff (remote.Retry)", regexp.MustCompile(`wait \*= 2|backoff \*= 2|delay \*= 2`), []string{"internal/remote"}},
	{"a credential scrubber (redact.Credentials)", regexp.MustCompile(`(?i)regexp\.MustCompile\(.*(bearer|authorization)`), []string{"internal/redact"}},
	{"a URL redactor (redact.URL)", regexp.MustCompile(`\.User = nil|\.User, \w+\.RawQuery`), []string{"internal/redact"}},
	{"a Retry-After parser (remote.RetryAfter)", regexp.MustCompile(`Get\("Retry-After"\)`), []string{"internal/remote"}},
}

// notPlumbing are lines that match a pattern above without being that
// plumbing, each with why.
var notPlumbing = map[string]string{
	// A local estate file decoded as a stream under its size limit, and a
	// line count up to a decode error's offset: files, not answers.
	"audit/estatefile.go": "io.LimitReader(",
	// Credentials taken out of the configured address to be sent as Basic
	// auth: the address kept for requests must not carry them.
	"collectors/rabbitmq/rabbitmq.go": ".User = nil",
}

func TestPlumbingLivesInRemote(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "testkit") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for n, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, p := range plumbing {
				if p.re.MatchString(line) && !inAny(path, p.home) && !exempt(path, line) {
					t.Errorf("%s:%d: %s is written here; call %s instead", path, n+1, p.what, strings.Join(p.home, " or "))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func exempt(path, line string) bool {
	what, ok := notPlumbing[filepath.ToSlash(path)]
	return ok && strings.Contains(line, what)
}

func inAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(filepath.ToSlash(path), d+"/") {
			return true
		}
	}
	return false
}
