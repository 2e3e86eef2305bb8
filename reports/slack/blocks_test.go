package slack

import (
	"strings"
	"testing"

	"github.com/slack-go/slack"
)

func TestSectionsStayWithinTheTextLimit(t *testing.T) {
	var lines []string
	for range 200 {
		lines = append(lines, "• "+strings.Repeat("x", 90))
	}
	blocks := sections("*Title*", lines)
	if len(blocks) < 7 {
		t.Fatalf("200 lines of ~92 characters packed into %d blocks; want them spread over several", len(blocks))
	}
	total := 0
	for i, b := range blocks {
		txt := b.(*slack.SectionBlock).Text.Text
		if runes(txt) > maxText {
			t.Errorf("block %d has %d characters", i, runes(txt))
		}
		if i > 0 && !strings.HasPrefix(txt, "*Title* (continued)") {
			t.Errorf("block %d does not say it continues the list", i)
		}
		total += strings.Count(txt, "• ")
	}
	if total != 200 {
		t.Errorf("%d lines made it into blocks, want all 200", total)
	}
}

func TestFitLineShortensVisiblyWithoutBreakingMarkup(t *testing.T) {
	cases := []struct {
		name, line string
	}{
		{"entities", strings.Repeat("&amp;", 1000)},
		{"link at the cut", strings.Repeat("a", 2990) + "<https://example.com/x|label>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := fitLine(tc.line, maxText)
			if runes(got) > maxText || !strings.HasSuffix(got, shortened) {
				t.Fatalf("fitLine gave %d characters ending %q", runes(got), got[len(got)-20:])
			}
			body := strings.TrimSuffix(got, shortened)
			if strings.LastIndex(body, "&") > strings.LastIndex(body, ";") || strings.LastIndex(body, "<") > strings.LastIndex(body, ">") {
				t.Errorf("cut through markup: ...%q", body[len(body)-12:])
			}
		})
	}
}

func TestEscapeAndLink(t *testing.T) {
	cases := []struct{ name, got, want string }{
		{"escape", esc("<!channel> & <@U1>", 0), "&lt;!channel&gt; &amp; &lt;@U1&gt;"},
		{"newlines folded", esc("a\nb\tc", 0), "a b c"},
		{"clipped", esc("abcdef", 4), "abc…"},
		{"issue link", link("https://github.com/o/r/issues/1?a=1&b=2", "BF-1"), "<https://github.com/o/r/issues/1?a=1&amp;b=2|BF-1>"},
		{"unsafe url dropped", link("https://x|<!channel>", "BF-1"), "BF-1"},
		{"label pipe", link("https://x/1", "a|b"), "<https://x/1|a¦b>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}
