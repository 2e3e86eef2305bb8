package github

import (
	"regexp"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

func TestMarkdownTextDefusesMentionsAndReferences(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ping @payments-team now", "ping @" + zwj + "payments-team now"},
		{"see #123 and acme/repo#45", "see #" + zwj + "123 and acme/repo#" + zwj + "45"},
		{"GH-77 and gh-8", "GH-" + zwj + "77 and gh-" + zwj + "8"},
		// GitHub mentions only after a non-word character: addresses stay
		// intact, so they can be copied into gcloud without a hidden character.
		{"mail ops@example.com", "mail ops@example.com"},
		{"serviceAccount:runner@proj.iam.gserviceaccount.com", "serviceAccount:runner@proj.iam.gserviceaccount.com"},
		{"cc:@ops,(@dba)/@x", "cc:@" + zwj + "ops,(@" + zwj + "dba)/@" + zwj + "x"},
		{"@lead@example.com", "@" + zwj + "lead@example.com"},
		{"*@team*", `\*@` + zwj + `team\*`},
		{"a\n- [ ] fake item\n# heading", "a - \\[ \\] fake item #" + " heading"},
		{"[click](https://evil.example)", `\[click\](https://evil.example)`},
		{"<!-- hide --> <img src=x>", "&lt;!-- hide --&gt; &lt;img src=x&gt;"},
		{"bf_1234_tmp | x", `bf\_1234\_tmp \| x`},
		{"#channel without digits", "#channel without digits"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := markdownText(tc.in); got != tc.want {
				t.Errorf("markdownText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCodeSpan(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"bigquery://p/d/t", "`bigquery://p/d/t`"},
		{"a`b", "``a`b``"},
		{"`edge`", "`` `edge` ``"},
		{"multi\nline", "`multi line`"},
		{"", ""},
	} {
		if got := codeSpan(tc.in); got != tc.want {
			t.Errorf("codeSpan(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// liveMention finds a mention or reference GitHub would act on, outside
// code spans.
var (
	codeSpans   = regexp.MustCompile("`+[^`]*`+")
	liveMention = regexp.MustCompile(`(^|[^\w])@[A-Za-z0-9]|#[0-9]|\bGH-[0-9]`)
)

func TestEstateTextInIssuesPingsNobody(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := newEstate()
	e.backfills = append(e.backfills, model.BackfillReport{Backfill: model.Backfill{
		ID: "BF-66", Owner: "@platform-leads", Purpose: "fix #4521 for @finance (GH-12)", JobID: "job @ops #7"},
		Lifecycle: model.Lifecycle{Blockers: []string{"grant held by @dba-team, see #99"}}})
	e.finding("BF-66", "BF005", model.StepRetired, "bigquery://p/tmp/bf_66_@team_#12 -->", func(f *model.Finding) {
		f.Title, f.Message = "temp table for @ml-team", "left by @someone after #1234"
		f.Evidence = []string{"owner label @data-eng", "ticket #88\n- [ ] injected"}
		f.Remediation = "ask @sre or see GH-5"
	})
	res := runSync(t, s, e)
	is := issueFor(t, f, "BF-66")
	if res.Created != 1 {
		t.Fatalf("result %+v", res)
	}
	for name, text := range map[string]string{"title": is.title, "body": is.body} {
		prose := codeSpans.ReplaceAllString(text, "")
		if m := liveMention.FindString(prose); m != "" {
			t.Errorf("%s has a live mention or reference %q:\n%s", name, m, text)
		}
	}
	if strings.Contains(is.body, "\n- [ ] injected") {
		t.Error("evidence injected a checklist item")
	}
	m, ok := parseMarker(is.body)
	if !ok || len(m.Items) != 1 || m.Items[0].Artifact != "bigquery://p/tmp/bf_66_@team_#12 -->" {
		t.Errorf("marker did not survive estate text: %+v %v", m, ok)
	}
	if again := runSync(t, s, e); again.Writes != 0 {
		t.Errorf("re-run made %d writes", again.Writes)
	}
}

func TestMarkerRoundTrip(t *testing.T) {
	m := marker{Backfill: "BF-1", Assignee: "alice", Items: []item{
		{FP: "abc", State: stateResolved, Rule: "BF005", Step: model.StepRetired, Artifact: "x --> y <!-- @z #1"},
	}}
	s, err := m.encode()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(s, "-->") != 1 || strings.ContainsAny(strings.TrimPrefix(strings.TrimSuffix(s, markerSuffix), markerPrefix), "<>@#") {
		t.Errorf("marker can be broken out of: %s", s)
	}
	got, ok := parseMarker("some text\r\n\r\n" + s)
	if !ok || got.Backfill != "BF-1" || got.Items[0].Artifact != m.Items[0].Artifact || got.Items[0].Step != model.StepRetired {
		t.Errorf("round trip: %+v %v", got, ok)
	}
	for _, body := range []string{"", "no marker", markerPrefix + "{not json" + markerSuffix, markerPrefix + `{"items":[]}` + markerSuffix} {
		if _, ok := parseMarker(body); ok {
			t.Errorf("parseMarker(%q) found a marker", body)
		}
	}
}
