package github

import (
	"strings"
	"testing"
	"time"

	_ "github.com/bfaudit/bfaudit/collectors/all" // every system's commands
	"github.com/bfaudit/bfaudit/model"

	// The rules carry their remedies: a finding has commands only once
	// its rule is registered, as in bfaudit.
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

// Each open item carries the commands that clear it, collapsed, inside its
// list item; a hostile table name stays inside the code block (no mention,
// no breaking out of the fence), and the footer points at bfaudit fix.
func TestOpenItemCarriesItsFixCommands(t *testing.T) {
	r, err := newRenderer(DefaultTitleTemplate, DefaultBodyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	uri := "bigquery://shop/tmp/bf_7_@team_```x"
	f := model.Finding{RuleID: "BF005", Title: "lingering temp table", Severity: model.SeverityMedium,
		BackfillID: "BF-7", ArtifactURI: uri, Message: "temporary table is still there",
		Fingerprint: model.Fingerprint("BF005", "BF-7", uri)}
	it := item{FP: f.Fingerprint, State: stateOpen, Rule: "BF005", Title: f.Title, Step: model.StepRetired, Artifact: uri, finding: &f}
	br := &model.BackfillReport{Backfill: &model.Backfill{ID: "BF-7"}}
	v, err := view("BF-7", time.Time{}, br, "", "", false, DefaultWaiverLabel, DefaultAcceptDays, []item{it}, nil, marker{Backfill: "BF-7"})
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := r.render(v)
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(body, "  <details><summary>Commands</summary>")
	end := strings.Index(body, "  </details>")
	if start < 0 || end < start {
		t.Fatalf("no collapsed commands in the item:\n%s", body)
	}
	block := body[start:end]
	if !strings.Contains(block, "bq rm") || !strings.Contains(block, "bf_7_@team_```x") {
		t.Errorf("commands lack bq rm with the table's real name:\n%s", block)
	}
	if !strings.Contains(block, "  ````sh\n") {
		t.Errorf("the fence does not outlast the backticks in the name:\n%s", block)
	}
	if !strings.Contains(body, "`bfaudit fix --backfill BF-7`") {
		t.Errorf("footer does not point at bfaudit fix:\n%s", body)
	}
	// Resolved items carry no commands.
	it.State = stateResolved
	v, _ = view("BF-7", time.Time{}, br, "", "", false, DefaultWaiverLabel, DefaultAcceptDays, []item{it}, nil, marker{Backfill: "BF-7"})
	if _, body, _ = r.render(v); strings.Contains(body, "<details>") {
		t.Errorf("a resolved item still shows commands:\n%s", body)
	}
}
