package remedy

import (
	"fmt"
	"sort"
	"strings"
)

// Markdown renders a remedy for a report or an issue: the commands in a
// sh code block, step by step, then what a person has to write. Fences
// are longer than any run of backticks in the content, so a name holding
// ``` cannot end the block early.
func (r Remedy) Markdown() string {
	var b strings.Builder
	if len(r.Actions) > 0 {
		var sh []string
		for _, a := range r.Actions {
			sh = append(sh, Comment(fmt.Sprintf("%s (%s): %s", a.Name, a.Step, a.Summary))+"\n"+a.Shell)
		}
		for _, alt := range r.Alternatives {
			sh = append(sh, "# or:\n"+Comment(alt))
		}
		b.WriteString(fenced("sh", strings.Join(sh, "\n")))
	} else if len(r.Alternatives) > 0 {
		b.WriteString(fenced("sh", strings.Join(r.Alternatives, "\n")))
	}
	if h := r.Human; h != nil {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(h.What)
		if h.Where != "" {
			b.WriteString(" Where: `" + strings.ReplaceAll(h.Where, "`", "'") + "`.")
		}
		b.WriteString("\n")
		if h.Template != "" {
			b.WriteString("\n" + fenced(templateLang(h.Template), h.Template))
		}
	}
	for _, n := range r.Notes {
		b.WriteString("\n- " + n)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// Text renders a remedy as plain text, for a chat message: the commands,
// one a line, or what to do.
func (r Remedy) Text() string {
	var lines []string
	for _, a := range r.Actions {
		lines = append(lines, a.Shell)
	}
	if h := r.Human; h != nil {
		lines = append(lines, h.What)
	}
	return strings.Join(lines, "\n")
}

func templateLang(t string) string {
	switch {
	case strings.HasPrefix(t, "DAG("):
		return "python"
	case strings.HasPrefix(t, "Subject:"):
		return "text"
	}
	if strings.Contains(t, "psql ") || strings.HasPrefix(t, "gcloud ") || strings.HasPrefix(t, "amtool ") {
		return "sh"
	}
	return "yaml"
}

// CodeBlock renders body as a fenced Markdown code block whose fence is
// longer than any run of backticks in it.
func CodeBlock(lang, body string) string { return fenced(lang, body) }

func fenced(lang, body string) string {
	body = strings.TrimRight(body, "\n")
	fence := "```"
	for strings.Contains(body, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + body + "\n" + fence + "\n"
}

// RuleRef names a rule for the docs.
type RuleRef struct{ ID, Name string }

// DocsMarkdown renders the "Fix examples" section of docs/rules.md: for
// each rule with a remedy, the remedy of an example finding, as `bfaudit
// fix` prints it.
func DocsMarkdown(rs []RuleRef) []byte {
	var b strings.Builder
	b.WriteString("\n## Fix examples\n\n")
	b.WriteString("What `bfaudit fix --backfill ID` prints for a finding of each rule (see [fix.md](fix.md)), on example artifacts named as the collectors name them. ")
	b.WriteString("Names are quoted for sh and SQL; each command sits at its lifecycle step, and `fix` holds back the steps that must wait.\n")
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
	for _, ref := range rs {
		cases := Examples(ref.ID)
		if len(cases) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### Fix %s %s\n", ref.ID, ref.Name)
		for _, c := range cases {
			r, ok := Build(c.Finding, c.Facts)
			if !ok {
				continue
			}
			subject := "the backfill's plan"
			if a := c.Facts.Artifact; a != nil {
				subject = fmt.Sprintf("%s `%s`", a.Kind, a.URI)
			} else if c.Finding.Location != nil {
				subject = "`" + c.Finding.Location.String() + "`"
			}
			fmt.Fprintf(&b, "\nFor %s:\n\n%s", subject, r.Markdown())
		}
	}
	return []byte(b.String())
}
