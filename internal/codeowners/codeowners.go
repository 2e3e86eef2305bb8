// Package codeowners reads a GitHub CODEOWNERS file and says who owns a
// path, as GitHub does: the last line whose pattern matches wins.
//
// Patterns follow GitHub's subset of gitignore: a leading "/" or a "/"
// inside anchors a pattern to the repository root, otherwise it matches at
// any depth; a trailing "/" matches what is below a directory; "*" and "?"
// stay within a path segment, "**" spans segments; "dir/*" matches the
// files directly in dir only; "\#" starts a pattern with "#". Negation
// ("!") and character ranges ("[...]") are not supported by GitHub, and
// are bad lines here too. Owners are @user (a managed user's login ends in
// its enterprise's "_shortcode"), @org/team or e-mail addresses;
// a pattern with no owners leaves its paths unowned.
package codeowners

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/bfaudit/bfaudit/internal/ghname"
)

// Rule is one line of the file.
type Rule struct {
	Pattern string
	Owners  []string
	Line    int
	re      *regexp.Regexp
}

// File is a parsed CODEOWNERS file.
type File struct {
	Path  string
	Rules []Rule
}

// Parse reads a CODEOWNERS file's content; path names it in errors. A line
// it cannot use is skipped, as GitHub skips it, and reported: the error
// joins one "path:line: what" per bad line, and the file holds the good
// lines, so the caller may go on with them.
func Parse(path string, data []byte) (*File, error) {
	f := &File{Path: path}
	var errs []error
	for i, line := range strings.Split(string(data), "\n") {
		r, err := parseLine(strings.TrimSuffix(line, "\r"))
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s:%d: %w", path, i+1, err))
		case r != nil:
			r.Line = i + 1
			f.Rules = append(f.Rules, *r)
		}
	}
	return f, errors.Join(errs...)
}

// parseLine reads one line: nil for a blank line or a comment.
func parseLine(line string) (*Rule, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
		return nil, nil
	}
	r := &Rule{Pattern: fields[0]}
	for _, o := range fields[1:] {
		if strings.HasPrefix(o, "#") {
			break // the rest of the line is a comment
		}
		if !validOwner(o) {
			return nil, fmt.Errorf("owner %q: want @user, @org/team or an e-mail address", o)
		}
		r.Owners = append(r.Owners, o)
	}
	re, err := compile(r.Pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", r.Pattern, err)
	}
	r.re = re
	return r, nil
}

var emailRe = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

func validOwner(o string) bool {
	if name, ok := strings.CutPrefix(o, "@"); ok {
		return ghname.IsLogin(name) || ghname.IsTeam(name)
	}
	return emailRe.MatchString(o)
}

// compile turns a pattern into a regular expression over slash-separated
// paths relative to the repository root.
func compile(p string) (*regexp.Regexp, error) {
	switch {
	case strings.HasPrefix(p, "!"):
		return nil, errors.New("negation (!) is not supported in CODEOWNERS")
	case strings.ContainsAny(p, "[]"):
		return nil, errors.New("character ranges ([...]) are not supported in CODEOWNERS")
	}
	p = strings.TrimPrefix(p, `\`) // "\#x" is the pattern "#x"
	dirOnly := strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	anchored := strings.Contains(p, "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil, errors.New("matches nothing")
	}
	segs := strings.Split(p, "/")
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i, s := range segs {
		last := i == len(segs)-1
		switch {
		case s == "**" && last:
			b.WriteString(".*")
		case s == "**":
			b.WriteString("(?:.*/)?") // zero or more whole directories
		default:
			b.WriteString(segment(s))
			if !last {
				b.WriteString("/")
			}
		}
	}
	switch last := segs[len(segs)-1]; {
	case dirOnly:
		b.WriteString("/.*")
	case last == "*" && len(segs) > 1:
		// "docs/*": the files directly in docs, not those below.
	case last != "**":
		b.WriteString("(?:/.*)?") // a directory's pattern owns what is below it
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// segment translates one path segment's wildcards.
func segment(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '*':
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// Owners returns the owners of name, a slash-separated path relative to
// the repository root: those of the last rule matching it, nil when no
// rule matches or the last one names nobody.
func (f *File) Owners(name string) []string {
	if f == nil {
		return nil
	}
	name = strings.TrimPrefix(strings.TrimPrefix(name, "./"), "/")
	for i := len(f.Rules) - 1; i >= 0; i-- {
		if f.Rules[i].re.MatchString(name) {
			return f.Rules[i].Owners
		}
	}
	return nil
}
