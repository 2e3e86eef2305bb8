package mdsafe

import (
	"regexp"
	"strings"
	"testing"
)

func TestTextDefusesMentionsReferencesAndURLs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ping @payments-team now", "ping @" + ZWJ + "payments-team now"},
		{"see #123 and acme/repo#45", "see #" + ZWJ + "123 and acme/repo#" + ZWJ + "45"},
		{"GH-77 and gh-8", "GH-" + ZWJ + "77 and gh-" + ZWJ + "8"},
		// GitHub mentions only after a non-word character: addresses stay
		// intact, so they can be copied into gcloud without a hidden character.
		{"mail ops@example.com", "mail ops@example.com"},
		{"serviceAccount:runner@proj.iam.gserviceaccount.com", "serviceAccount:runner@proj.iam.gserviceaccount.com"},
		{"cc:@ops,(@dba)/@x", "cc:@" + ZWJ + "ops,(@" + ZWJ + "dba)/@" + ZWJ + "x"},
		{"@lead@example.com", "@" + ZWJ + "lead@example.com"},
		{"*@team*", `\*@` + ZWJ + `team\*`},
		{"a\n- [ ] fake item\n# heading", "a - \\[ \\] fake item #" + " heading"},
		{"<!-- hide --> <img src=x>", "&lt;!-- hide --&gt; &lt;img src=x&gt;"},
		{"bf_1234_tmp | x", `bf\_1234\_tmp \| x`},
		{"#channel without digits", "#channel without digits"},
		// URLs: whole, in a code span, so nothing links them and they copy.
		{"see https://evil.example/a?b=1&c=@x#2 now", "see `https://evil.example/a?b=1&c=@x#2` now"},
		{"[click](https://evil.example)", "\\[click\\](`https://evil.example`)"},
		{"(at https://en.example/Foo_(bar))", "(at `https://en.example/Foo_(bar)`)"},
		{"go to www.evil.example.", "go to `www.evil.example`."},
		{"HTTP://EVIL.EXAMPLE, ftp://f.example/x", "`HTTP://EVIL.EXAMPLE`, `ftp://f.example/x`"},
		{"table bigquery://p/d/t_1 left", "table `bigquery://p/d/t_1` left"},
		{"a https://x.example/|b", "a `https://x.example/`\\|b"},
		{"https://x.example/`y", "`https://x.example/`\\`y"},
		{"https:// alone", "`https://` alone"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := Text(tc.in); got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestPlainBreaksMentionsOnly(t *testing.T) {
	if got, want := Plain("fix @ml-team's\ntable #4 *now*"), "fix @"+ZWJ+"ml-team's table #"+ZWJ+"4 *now*"; got != want {
		t.Errorf("Plain = %q, want %q", got, want)
	}
}

func TestCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"bigquery://p/d/t", "`bigquery://p/d/t`"},
		{"a`b", "``a`b``"},
		{"`edge`", "`` `edge` ``"},
		{"multi\nline", "`multi line`"},
		{"", ""},
	} {
		if got := Code(tc.in); got != tc.want {
			t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"@a #1 https://x.example/(y) www.z", "`a` | b", "https://", "x_(https://a.b))"} {
		f.Add(s)
	}
	codeSpans := regexp.MustCompile("`[^`]*`")
	live := regexp.MustCompile(`(^|[^\w])@[A-Za-z0-9]|#[0-9]|(?i)\bGH-[0-9]`)
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if strings.ContainsAny(out, "\r\n") {
			t.Fatalf("Text(%q) spans lines: %q", s, out)
		}
		if strings.Contains(s, "`") {
			return // the only backticks left are our single-backtick fences
		}
		prose := codeSpans.ReplaceAllString(out, " ")
		if m := urlPattern.FindString(prose); m != "" {
			t.Fatalf("Text(%q) = %q leaves the URL %q outside a code span", s, out, m)
		}
		if m := live.FindString(prose); m != "" {
			t.Fatalf("Text(%q) = %q leaves %q live", s, out, m)
		}
	})
}
