package codeowners

import (
	"strings"
	"testing"
)

// A file in the shape of GitHub's own CODEOWNERS example.
const sample = `# Default owners, unless a later match takes precedence.
*       @global-owner1 @global-owner2

*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
*.sql @mona-cat_octo
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
\#notes @notes-owner
plans/**/bf-*.yaml @shop/data-platform   # plans of backfills
`

func TestOwners(t *testing.T) {
	f, err := Parse("CODEOWNERS", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{"README.md", "@global-owner1 @global-owner2"},
		{"src/app.js", "@js-owner"},
		{"main.go", "docs@example.com"},
		{"a/b/notes.txt", "@octo-org/octocats"},
		{"etl/fix.sql", "@mona-cat_octo"},  // a managed user: login, "_", the enterprise's short code
		{"build/logs/x/y.log", "@octocat"}, // **/logs comes later and wins
		{"build/logsx", "@global-owner1 @global-owner2"},
		{"docs/getting-started.md", "@doctocat"},                       // /docs/ after docs/*
		{"x/docs/getting-started.md", "@global-owner1 @global-owner2"}, // docs/* is anchored
		{"web/apps/main.c", "@octocat"},
		{"apps/github/x.c", ""}, // a pattern with no owner: unowned
		{"apps/other/x.c", "@octocat"},
		{"scripts/run.sh", "@doctocat @octocat"},
		{"deep/logs/a", "@octocat"},
		{"#notes", "@notes-owner"},
		{"plans/bf-1.yaml", "@shop/data-platform"},
		{"plans/team/q3/bf-2.yaml", "@shop/data-platform"},
		{"./plans/bf-3.yaml", "@shop/data-platform"},
		{"plans/team/other.yaml", "@global-owner1 @global-owner2"},
	} {
		if got := strings.Join(f.Owners(tt.path), " "); got != tt.want {
			t.Errorf("%s: owners %q, want %q", tt.path, got, tt.want)
		}
	}
}

// docs/* owns the files directly in docs, not those below it.
func TestStarOwnsOneLevel(t *testing.T) {
	f, err := Parse("CODEOWNERS", []byte("docs/* @a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Owners("docs/x.md"); len(got) != 1 {
		t.Errorf("docs/x.md: %v", got)
	}
	if got := f.Owners("docs/build/x.md"); got != nil {
		t.Errorf("docs/build/x.md should not match docs/*: %v", got)
	}
	var none *File
	if none.Owners("x") != nil {
		t.Error("no file owns nothing")
	}
}

// Bad lines are reported as path:line: what, and skipped as GitHub skips
// them: the good lines still apply.
func TestBadLines(t *testing.T) {
	data := "* @all\n!secret.txt @a\nsrc/[ab].go @a\nplans/ bad owner\n/ @a\n\n# fine\nplans/ @plans\r\n"
	f, err := Parse(".github/CODEOWNERS", []byte(data))
	if err == nil {
		t.Fatal("bad lines should be reported")
	}
	for _, want := range []string{
		".github/CODEOWNERS:2: pattern \"!secret.txt\": negation (!) is not supported in CODEOWNERS",
		".github/CODEOWNERS:3: pattern \"src/[ab].go\": character ranges ([...]) are not supported in CODEOWNERS",
		".github/CODEOWNERS:4: owner \"bad\": want @user, @org/team or an e-mail address",
		".github/CODEOWNERS:5: pattern \"/\": matches nothing",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 4 {
		t.Errorf("%d errors, want 4:\n%v", n, err)
	}
	if got := strings.Join(f.Owners("plans/bf.yaml"), ","); got != "@plans" {
		t.Errorf("plans/bf.yaml: %q, want the last good line's @plans", got)
	}
	if got := strings.Join(f.Owners("secret.txt"), ","); got != "@all" {
		t.Errorf("secret.txt: %q", got)
	}
	if len(f.Rules) != 2 || f.Rules[1].Line != 8 {
		t.Errorf("rules %+v", f.Rules)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample, "plans/bf-1.yaml")
	f.Add("a/**/b/ @x\n\\#y *@z.io\n", "a/b/c")
	f.Fuzz(func(t *testing.T, data, path string) {
		file, _ := Parse("CODEOWNERS", []byte(data))
		for _, o := range file.Owners(path) {
			if !validOwner(o) {
				t.Errorf("owner %q returned", o)
			}
		}
	})
}
