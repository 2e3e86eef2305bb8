package reports

import (
	"bufio"
	"context"
	"fmt"
	htmltemplate "html/template"
	"io"
	"slices"
	"sort"
	"strings"
	texttemplate "text/template"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/templates"
)

// Template renders a report through a Go template from templates/ (or a
// file given as "@path"). HTML templates are escaped as HTML.
type Template struct {
	Name string
	HTML bool
}

// MaxRows is how many findings the Markdown and HTML reports list: a
// table of a million rows helps no one and would take minutes to render.
// The rest are counted on a line that points at the JSON report, which
// holds them all.
const MaxRows = 1000

// Write implements Writer. Templates write many small pieces, so they go
// through a buffer.
func (t *Template) Write(_ context.Context, w io.Writer, r *model.Report) error {
	tpl, err := t.parse()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := tpl.Execute(bw, newView(r)); err != nil {
		return err
	}
	return bw.Flush()
}

// executor is a parsed text or HTML template.
type executor interface {
	Execute(w io.Writer, data any) error
}

// parse loads and parses the template with the functions reports offer.
func (t *Template) parse() (executor, error) {
	text, err := templates.Load(t.Name)
	if err != nil {
		return nil, err
	}
	if t.HTML {
		tpl, err := htmltemplate.New(t.Name).Funcs(htmlFuncs()).Parse(text)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", t.Name, err)
		}
		return tpl, nil
	}
	tpl, err := texttemplate.New(t.Name).Funcs(textFuncs()).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", t.Name, err)
	}
	return tpl, nil
}

// TemplateFormats are the report formats rendered from a template, which
// report.templates may override.
var TemplateFormats = []string{"markdown", "html"}

// CheckTemplate loads and parses the template a format would be rendered
// with (ref is an embedded name or "@path"), so a config that points at a
// missing or broken template fails when it loads, before any sink acts.
func CheckTemplate(format, ref string) error {
	if !slices.Contains(TemplateFormats, format) {
		return fmt.Errorf("format %q is not rendered from a template (only %s are)", format, strings.Join(TemplateFormats, " and "))
	}
	_, err := (&Template{Name: ref, HTML: format == "html"}).parse()
	return err
}

// View is what templates see: the report plus groupings they need.
type View struct {
	*model.Report
	// Steps are the lifecycle steps in order, for checklists.
	Steps []model.Step
	// Severities in order, most severe first.
	Severities []model.Severity
	// Listed are the findings the tables list: the first MaxRows, in
	// report order (most severe first).
	Listed []model.Finding
	// Unlisted counts the findings past MaxRows, left to the JSON report.
	Unlisted int
	// Owners are the owners with open findings, most findings first.
	Owners []OwnerCount
	// Incomplete lists sources that did not answer fully.
	Incomplete []model.Coverage
	// WithDue says some finding has a due date: the tables get a due column.
	WithDue bool
	// Overdue counts the open findings past their due date.
	Overdue int
	// OverdueTeams are the teams with overdue open findings, those with
	// the most critical ones first; CriticalOverdue are the critical
	// overdue findings, longest overdue first. The weekly review opens
	// with them.
	OverdueTeams    []TeamOverdue
	CriticalOverdue []model.Finding

	byBackfill map[string][]model.Finding
	urgency    *urgency
}

// NextOf is a backfill's most urgent open item (see Next).
func (v *View) NextOf(b model.BackfillReport) Next {
	if v.urgency == nil {
		v.urgency = newUrgency(v.Report)
	}
	return v.urgency.next(b)
}

// RestOf is what a backfill row's "and N more" opens to (see Rest).
func (v *View) RestOf(b model.BackfillReport) Rest {
	if v.urgency == nil {
		v.urgency = newUrgency(v.Report)
	}
	return v.urgency.rest(b)
}

// ByBackfill groups findings by backfill id ("" for those with none). It
// is built on first use: the bundled templates do not use it.
func (v *View) ByBackfill() map[string][]model.Finding {
	if v.byBackfill == nil {
		v.byBackfill = map[string][]model.Finding{}
		for _, f := range v.Findings {
			v.byBackfill[f.BackfillID] = append(v.byBackfill[f.BackfillID], f)
		}
	}
	return v.byBackfill
}

// OwnerCount is one owner's open findings.
type OwnerCount struct {
	Owner string
	Count int
}

func newView(r *model.Report) *View {
	v := &View{Report: r, Steps: model.Steps(), Severities: model.Severities(), Listed: r.Findings, WithDue: hasDue(r.Findings),
		Overdue: OverdueCount(r)}
	v.OverdueTeams, v.CriticalOverdue = overdueByTeam(r)
	if len(v.Listed) > MaxRows {
		v.Listed, v.Unlisted = v.Listed[:MaxRows], len(v.Listed)-MaxRows
	}
	for o, n := range r.Summary.ByOwner {
		v.Owners = append(v.Owners, OwnerCount{o, n})
	}
	sort.Slice(v.Owners, func(i, j int) bool {
		if v.Owners[i].Count != v.Owners[j].Count {
			return v.Owners[i].Count > v.Owners[j].Count
		}
		return v.Owners[i].Owner < v.Owners[j].Owner
	})
	for _, c := range r.Coverage {
		if !c.Full() {
			v.Incomplete = append(v.Incomplete, c)
		}
	}
	return v
}

func commonFuncs() map[string]any {
	return map[string]any{
		"where":      Where,
		"read":       ReadCell,
		"lifecycle":  LifecycleLabel,
		"planSays":   PlanClaims,
		"overdue":    IsOverdue,
		"date":       func(t interface{ Format(string) string }) string { return t.Format("2006-01-02") },
		"datetime":   func(t interface{ Format(string) string }) string { return t.Format("2006-01-02 15:04 MST") },
		"join":       strings.Join,
		"oneline":    oneLine,
		"firstLine":  firstLine,
		"otherLines": otherLines,
		"shortWhere": func(f model.Finding) string { return shortenMiddle(Where(f), 28) },
		"count":      func(m map[string]int, k fmt.Stringer) int { return m[k.String()] },
		"step":       func(i int) model.Step { return model.Step(i) },
		"reached":    func(b model.BackfillReport, s model.Step) bool { return b.Known && b.Lifecycle.Reached >= s },
		"age":        Age,
		"due":        DueCell,
		"dueLeft":    due.Left,
		"fix":        FixCommands,
		"fixmd":      FixMarkdown,
		"sevbrief":   SeverityBrief,
		"lastWeeks":  lastWeeks,
		"funnelStep": funnelLabel,
	}
}

func textFuncs() texttemplate.FuncMap {
	f := texttemplate.FuncMap(commonFuncs())
	f["md"] = markdownText
	return f
}

func htmlFuncs() htmltemplate.FuncMap {
	f := htmltemplate.FuncMap(commonFuncs())
	f["severityChart"] = func(r *model.Report) htmltemplate.HTML { return htmltemplate.HTML(SeverityChart(r)) }
	f["ownerChart"] = func(v *View) htmltemplate.HTML { return htmltemplate.HTML(OwnerChart(v.Owners)) }
	f["trendChart"] = func(r *model.Report) htmltemplate.HTML { return htmltemplate.HTML(TrendChart(r)) }
	f["lifecycleChart"] = func(b model.BackfillReport) htmltemplate.HTML { return htmltemplate.HTML(LifecycleChart(b)) }
	f["weeklyOpenChart"] = func(w *model.Weekly) htmltemplate.HTML { return htmltemplate.HTML(WeeklyOpenChart(w)) }
	f["weeklyFlowChart"] = func(w *model.Weekly) htmltemplate.HTML { return htmltemplate.HTML(WeeklyFlowChart(w)) }
	f["funnelChart"] = func(w *model.Weekly) htmltemplate.HTML { return htmltemplate.HTML(FunnelChart(w)) }
	f["breakAfterColons"] = breakAfterColons
	return f
}

// breakAfterColons lets a narrow cell wrap an id after its colons
// (airflow:scheduler:daily_revenue:63) rather than inside a word.
func breakAfterColons(s string) htmltemplate.HTML {
	parts := strings.Split(s, ":")
	for i, p := range parts {
		parts[i] = htmltemplate.HTMLEscapeString(p)
	}
	return htmltemplate.HTML(strings.Join(parts, ":<wbr>"))
}

// firstLine is a message's first line, which a folded finding shows;
// otherLines is the rest, shown when it is opened ("" for most).
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

func otherLines(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return ""
}
