package github

import (
	"bytes"
	"fmt"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/templates"
)

// Template names in templates/; config may point at "@path" overrides.
const (
	DefaultTitleTemplate = "github_issue_title.tmpl"
	DefaultBodyTemplate  = "github_issue_body.md.tmpl"
)

// GitHub rejects titles over 256 characters and bodies over 65536; a body
// near the limit is rendered again without evidence and remediation.
const (
	maxTitle       = 256
	compactAtBytes = 60000
)

// issueView is what the title and body templates see.
type issueView struct {
	ID          string
	Backfill    model.Backfill
	Lifecycle   model.Lifecycle
	Owner       string // as written in the estate
	Assignee    string // GitHub login, when the owner map knows one
	Assigned    bool   // the login is (or is being) assigned; false once GitHub refused it or a person unassigned it
	Steps       []stepView
	Resolved    int
	Total       int
	Unread      []string // sources whose items could not be ticked
	WaiverLabel string
	Compact     bool
	Marker      string
}

type stepView struct {
	Heading string
	Items   []itemView
}

type itemView struct {
	Checked     bool
	State       string
	Rule        string
	Severity    string
	Title       string
	Artifact    string
	Message     string
	Evidence    []string
	Remediation string
	// Fix is the collapsed block of commands that clear the item, as
	// `bfaudit fix` prints them, indented to sit inside its list item.
	Fix  string
	Note string
	// AcceptedBy (a GitHub login), AcceptedOn and AcceptedUntil (dates)
	// say who accepted the item with the waiver label, and until when.
	AcceptedBy    string
	AcceptedOn    string
	AcceptedUntil string
	// Due is the open item's due date, and Overdue says it is past. The
	// body shows dates only, never the time left: that would change the
	// body, and cost a write, every day.
	Due     string
	Overdue bool
}

// stepHeadings name the lifecycle steps ("Close the loop in order" in docs/practice.md).
var stepHeadings = map[model.Step]string{
	model.StepPlan:          "0. Plan: governance before and during the replay",
	model.StepVerified:      "1. Verified: the corrected range exists and matches the requirement",
	model.StepNormalized:    "2. Normalized: the pipeline is back on its normal schedule and alerting",
	model.StepAccessRevoked: "3. Access revoked: temporary write paths and elevated credentials are gone",
	model.StepArchived:      "4. Archived: the decision record holds purpose, range, job id, validation query, approving owner and final data location",
	model.StepRetired:       "5. Retired: temporary tables and job definitions deleted, or the job made a runbook entry",
}

func stepHeading(s model.Step) string {
	if h, ok := stepHeadings[s]; ok {
		return h
	}
	return "Other: " + s.String()
}

// position spells out where a backfill stands: the cleanup steps in order,
// the reached ones ticked and the next one in bold. A backfill no plan
// describes has "plan" as its next step, before the cleanup steps.
func position(lc model.Lifecycle) string {
	var parts []string
	if !lc.Done && lc.Next == model.StepPlan {
		parts = append(parts, "**plan** (next)")
	}
	for _, s := range model.Steps() {
		switch {
		case lc.Done || (lc.Reached != model.StepPlan && s <= lc.Reached):
			parts = append(parts, s.String()+" ✓")
		case s == lc.Next && lc.State() == "unknown":
			parts = append(parts, "**"+s.String()+"** (unknown)")
		case s == lc.Next:
			parts = append(parts, "**"+s.String()+"** (next)")
		default:
			parts = append(parts, s.String())
		}
	}
	out := strings.Join(parts, " → ")
	if lc.Done {
		out = "every step done: " + out
	}
	return out
}

var funcs = template.FuncMap{
	"position": position,
	"md":       markdownText,
	"code":     codeSpan,
	"plain":    plainText,
	"date": func(t time.Time) string {
		if t.IsZero() {
			return "unknown"
		}
		return t.UTC().Format("2006-01-02 15:04 MST")
	},
}

// renderer holds the parsed title and body templates.
type renderer struct {
	title, body *template.Template
}

func newRenderer(titleRef, bodyRef string) (*renderer, error) {
	parse := func(key, ref string) (*template.Template, error) {
		text, err := templates.Load(ref)
		if err != nil {
			return nil, fmt.Errorf("github.%s: %w", key, err)
		}
		t, err := template.New(ref).Funcs(funcs).Option("missingkey=error").Parse(text)
		if err != nil {
			return nil, fmt.Errorf("github.%s: parse %s: %w", key, ref, err)
		}
		return t, nil
	}
	t, err := parse("title_template", titleRef)
	if err != nil {
		return nil, err
	}
	b, err := parse("body_template", bodyRef)
	if err != nil {
		return nil, err
	}
	return &renderer{title: t, body: b}, nil
}

// render produces an issue's title and body.
func (r *renderer) render(v issueView) (title, body string, err error) {
	var buf bytes.Buffer
	if err := r.title.Execute(&buf, v); err != nil {
		return "", "", fmt.Errorf("github: render title for %s: %w", v.ID, err)
	}
	title = truncate(strings.TrimSpace(buf.String()), maxTitle)
	buf.Reset()
	if err := r.body.Execute(&buf, v); err != nil {
		return "", "", fmt.Errorf("github: render body for %s: %w", v.ID, err)
	}
	if buf.Len() > compactAtBytes && !v.Compact {
		v.Compact = true
		return r.render(v)
	}
	return title, normaliseBody(buf.String()), nil
}

// normaliseBody makes bodies comparable: GitHub hands back bodies edited in
// the browser with CRLF line ends.
func normaliseBody(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// newEvidence drops the evidence lines the message already says (rules
// often state a fact in both), so the owner reads each once.
func newEvidence(message string, evidence []string) []string {
	var out []string
	for _, e := range evidence {
		if t := strings.TrimSpace(e); t == "" || strings.Contains(message, t) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// view builds the template data from the merged items.
func view(id string, now time.Time, br *model.BackfillReport, owner, assignee string, assigned bool, waiverLabel string, acceptDays int, items []item, unread []string, m marker) (issueView, error) {
	v := issueView{ID: id, Owner: owner, Assignee: assignee, Assigned: assigned && assignee != "", WaiverLabel: waiverLabel, Unread: unread, Total: len(items)}
	if br != nil {
		v.Backfill, v.Lifecycle = *br.Backfill, br.Lifecycle
	}
	byStep := map[model.Step]int{}
	for _, it := range items {
		iv := itemView{
			Checked:  !it.State.blocking(),
			State:    string(it.State),
			Rule:     it.Rule,
			Severity: it.Severity,
			Title:    it.Title,
			Artifact: it.Artifact,
		}
		if iv.Checked {
			v.Resolved++
		}
		if f := it.finding; f != nil {
			iv.Message, iv.Evidence, iv.Remediation = f.Message, newEvidence(f.Message, f.Evidence), f.Remediation
			iv.Fix = fixBlock(*f)
			if f.Waiver != nil {
				iv.Note = f.Waiver.Reason
			}
			if !f.DueAt.IsZero() && f.Waiver == nil {
				iv.Due, iv.Overdue = due.Date(f.DueAt), !now.Before(f.DueAt)
			}
		}
		if a := it.Accepted; a != nil && it.State == stateAccepted {
			iv.AcceptedBy, iv.AcceptedOn, iv.AcceptedUntil = a.By, day(a.At), day(a.expires(acceptDays))
		}
		i, ok := byStep[it.Step]
		if !ok {
			i = len(v.Steps)
			byStep[it.Step] = i
			v.Steps = append(v.Steps, stepView{Heading: stepHeading(it.Step)})
		}
		v.Steps[i].Items = append(v.Steps[i].Items, iv)
	}
	marker, err := m.encode()
	if err != nil {
		return issueView{}, err
	}
	v.Marker = marker
	return v, nil
}

// fixBlock renders the commands that clear a finding as a collapsed
// <details> block inside its checklist item ("" when bfaudit has no
// command: a human act). Estate names sit in a fenced code block, where
// GitHub expands no mentions, references or links, and the fence outlasts
// any backticks in them.
func fixBlock(f model.Finding) string {
	r, ok := remedy.For(f, nil)
	if !ok {
		return ""
	}
	cmds := r.Commands()
	if len(cmds) == 0 {
		return ""
	}
	block := "<details><summary>Commands</summary>\n\n" + remedy.CodeBlock("sh", strings.Join(cmds, "\n")) + "\n</details>"
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}
