package github

import (
	"regexp"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// liveMention finds a mention or reference GitHub would act on, outside
// code spans.
var (
	codeSpans   = regexp.MustCompile("`+[^`]*`+")
	liveMention = regexp.MustCompile(`(^|[^\w])@[A-Za-z0-9]|#[0-9]|\bGH-[0-9]`)
	bareURL     = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://|\bwww\.`)
	mdLink      = regexp.MustCompile(`(?:^|[^\\])\]\(([^)]*)\)`) // not an escaped \]
)

// docs/reports/github.md promises no injected links: a bare URL in a
// plan's purpose or a finding's message would be autolinked by GitHub, so
// it is shown whole in a code span instead (issue 13.2).
func TestNeutralIssueBodyHasNoInjectedLinks(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := newEstate()
	e.backfills = append(e.backfills, model.BackfillReport{Backfill: &model.Backfill{
		ID: "BF-67", Owner: "alice", Purpose: "re-run for https://evil.example/login?next=x (see www.evil.example)"},
		Lifecycle: model.Lifecycle{Blockers: []string{"grant listed at HTTPS://evil.example/g"}}})
	e.finding("BF-67", "BF005", model.StepRetired, "bigquery://p/tmp/bf_67", func(f *model.Finding) {
		f.Message = "copy left at ftp://files.example/x."
		f.Evidence = []string{"[docs](https://evil.example/docs)"}
	})
	runSync(t, s, e)
	is := issueFor(t, f, "BF-67")
	body, _, _ := strings.Cut(is.body, markerPrefix) // the marker is an HTML comment: not rendered
	prose := mdLink.ReplaceAllString(codeSpans.ReplaceAllString(body, ""), "]()")
	if m := bareURL.FindString(prose); m != "" {
		t.Errorf("body has a bare URL %q GitHub would link:\n%s", m, is.body)
	}
	if l := mdLink.FindString(is.body); l != "" {
		t.Errorf("body has a Markdown link %q:\n%s", l, is.body)
	}
	for _, want := range []string{"`https://evil.example/login?next=x`", "`www.evil.example`", "`HTTPS://evil.example/g`", "`ftp://files.example/x`."} {
		if !strings.Contains(is.body, want) {
			t.Errorf("body lacks the URL whole in a code span, %s:\n%s", want, is.body)
		}
	}
}

func TestEstateTextInIssuesPingsNobody(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := newEstate()
	e.backfills = append(e.backfills, model.BackfillReport{Backfill: &model.Backfill{
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
