package rules

import (
	"bytes"
	"fmt"
	"strings"
)

// DocsRegenerate is the command that rewrites docs/rules.md.
const DocsRegenerate = "go test ./rules/builtin -run TestDocsUpToDate -update"

// Markdown renders docs/rules.md from the metadata of the given rules
// (normally All()): the same data `bfaudit rules list` and `rules explain`
// print, so the three never disagree.
func Markdown(rs []*Rule) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Rules\n\n")
	p("<!-- Generated from the rules' metadata; do not edit. Regenerate with:\n     %s -->\n\n", DocsRegenerate)
	p("bfaudit judges every backfill against the backfill discipline stated in [practice.md](practice.md). ")
	p("Each rule below cites the section of that page it checks. `bfaudit rules list` lists them and ")
	p("`bfaudit rules explain ID` prints one.\n\n")
	p("- Severity overrides: `rules.severity.<ID>: high`; disabling: `rules.disabled: [<ID>]`; ")
	p("parameters: `rules.params.<ID>.<name>`.\n")
	p("- Waivers accept a finding for a while: [rules/waivers.md](rules/waivers.md).\n")
	p("- User rules in CEL: [rules/cel.md](rules/cel.md).\n")
	p("- `bfaudit plan check` runs the governance rules on plan files: [rules/plan-check.md](rules/plan-check.md).\n\n")
	p("Deadlines are over at their exact instant (an expiry of 2026-10-01T00:00Z has passed at that instant). ")
	p("No rule concludes that something is gone from a source that did not answer (degraded or failed coverage).\n\n")
	p("Severity is a ladder: each rule's findings take the rung that the artifact's state and the backfill's classification put them on, ")
	p("and a severity override moves the whole ladder (`rules.severity.BF021: high` puts each rung one level higher). ")
	p("\"Classified data\" is financial, customer, security or compliance data; \"customer-visible data\" is financial or customer data.\n\n")
	p("One problem is one finding: where two rules judge the same artifact for the same reason, the finding of the one that is superseded ")
	p("is folded into the other's on the same artifact, as one line of its evidence, and the finding keeps the more severe of the two severities ")
	p("(\"Precedence\" below). A waiver of the folded rule's finding then matches nothing: waive the surviving finding.\n\n")

	groups := []struct {
		title string
		keep  func(*Rule) bool
	}{
		{"Cleanup, after the replay", func(r *Rule) bool { return !r.Governance && !r.meta }},
		{"Governance, before and during the replay", func(r *Rule) bool { return r.Governance }},
		{"About the audit's own config", func(r *Rule) bool { return r.meta }},
	}
	p("| id | name | default severity | lifecycle step | flags |\n|---|---|---|---|---|\n")
	for _, g := range groups {
		for _, r := range rs {
			if g.keep(r) {
				p("| [%s](#%s) | %s | %s | %s | %s |\n", r.ID, anchor(r), r.Name, severityText(r), r.Step, cell(r.Title))
			}
		}
	}
	for _, g := range groups {
		p("\n## %s\n", g.title)
		for _, r := range rs {
			if !g.keep(r) {
				continue
			}
			p("\n### %s %s\n\n", r.ID, r.Name)
			p("**%s**\n\n", r.Title)
			if len(r.Ladder) > 0 {
				p("- Severity: %s by default\n", r.Severity)
				for _, g := range r.Ladder {
					p("  - %s: %s\n", g.Severity, g.When)
				}
			} else {
				p("- Severity: %s\n", severityText(r))
			}
			if line := precedenceText(r, rs); line != "" {
				p("- Precedence: %s\n", line)
			}
			p("- Lifecycle step: %s\n", r.Step)
			if r.Governance {
				p("- Governance: yes, run by `bfaudit plan check`\n")
			}
			p("- Practice: [%s](practice.md#%s)\n\n", PracticeTitles[r.Practice], r.Practice)
			p("Why: %s\n\n", r.Rationale)
			p("Fix: %s\n", r.Remediation)
			if len(r.Params) > 0 {
				p("\n| parameter | default | meaning |\n|---|---|---|\n")
				for _, pr := range r.Params {
					p("| `rules.params.%s.%s` | `%s` | %s |\n", r.ID, pr.Name, pr.Default, cell(pr.Description))
				}
			}
		}
	}
	return b.Bytes()
}

func severityText(r *Rule) string {
	if r.Raised != "" {
		return fmt.Sprintf("%s (%s)", r.Severity, r.Raised)
	}
	return r.Severity.String()
}

// precedenceText says what the rule folds in and what it is folded into.
func precedenceText(r *Rule, rs []*Rule) string {
	var folds, into []string
	for _, s := range r.Supersedes {
		folds = append(folds, fmt.Sprintf("%s (%s)", s.Rule, s.As))
	}
	for _, o := range rs {
		for _, s := range o.Supersedes {
			if s.Rule == r.ID {
				into = append(into, o.ID)
			}
		}
	}
	var parts []string
	if len(folds) > 0 {
		parts = append(parts, "folds in the finding of "+strings.Join(folds, ", ")+" on the same artifact")
	}
	if len(into) > 0 {
		parts = append(parts, "folded into the finding of "+strings.Join(into, ", ")+" when one of them reports the same artifact")
	}
	return strings.Join(parts, "; ")
}

func anchor(r *Rule) string { return strings.ToLower(r.ID + "-" + r.Name) }

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
