package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
)

// The HTML report as a platform lead reads it: opened in a real Chromium
// (BFAUDIT_TEST_CHROMIUM; .ci/run installs Debian's chromium) at 800,
// 1024, 1280 and 1920 px, printed on A4, in dark mode, with JavaScript on
// and off, and checked with axe-core (BFAUDIT_TEST_AXE_JS, axe.min.js;
// .ci/run installs it from npm) at every width. Screenshots and PDFs go to
// BFAUDIT_BROWSER_OUT (default a folder under the system's temp dir,
// logged) for a reviewer to look at.

// widths are the windows the report is read in: a small laptop window
// or half a screen (cards), a laptop, a desktop and a wide screen.
var widths = []int64{800, 1024, 1280, 1920}

// maxRowHeight bounds a Backfills row and a closed Findings row where the
// tables are tables (1000 px and up): a finding is one line until opened
// and a backfill shows one next item, so a taller row means something
// does not fold or does not wrap. maxCardHeight bounds a card below
// 1000 px. The trial that set them found findings rows of 600 px at 1024
// px and a backfill row of 269 px at 1280 px.
const maxRowHeight, maxCardHeight = 200, 260

// minMessageChars is how narrow the column a message is read in may get,
// in characters of its own font ("ch"): the trial found the Message
// column one character wide at 800 px.
const minMessageChars = 30

func browserOut(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("BFAUDIT_BROWSER_OUT")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "bfaudit-browser")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser starts a headless Chromium for the test, or skips.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("BFAUDIT_TEST_CHROMIUM")
	if path == "" {
		t.Skip("set BFAUDIT_TEST_CHROMIUM=/usr/bin/chromium (Debian's chromium; .ci/run installs it) to run the browser tests of the HTML report")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 2400))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 8*time.Minute)
	t.Cleanup(cancel3)
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// pageErrors collects console errors and uncaught exceptions of the tab.
type pageErrors struct {
	mu   sync.Mutex
	errs []string
}

func (p *pageErrors) listen(ctx context.Context) {
	chromedp.ListenTarget(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value))
				}
				p.errs = append(p.errs, "console.error: "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			p.errs = append(p.errs, "exception: "+e.ExceptionDetails.Error())
		}
	})
}

func (p *pageErrors) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errs...)
}

// htmlCase is one report to look at.
type htmlCase struct {
	name     string
	file     string
	sections []string // h2 headings that must be there
	docs     bool     // a screenshot of it goes into the docs
	// axeAt limits the widths axe-core checks (all when empty): on a
	// page of a thousand findings one run takes most of a minute.
	axeAt []int64
}

// layout is what the page measures of itself at one width.
type layout struct {
	DocW     float64  `json:"docW"`
	WinW     float64  `json:"winW"`
	Heads    []string `json:"heads"`
	Overlaps []string `json:"overlaps"` // header cells whose content meets another's or leaves its cell
	Narrow   []string `json:"narrow"`   // message or next cells narrower than minMessageChars
	Chars    []int    `json:"chars"`    // how many characters the message and next cells hold, for the log
	Findings float64  `json:"findings"` // the tallest findings row
	Tallest  string   `json:"tallest"`  // its first words
	Backfill float64  `json:"backfill"` // the tallest backfills row
	Cards    bool     `json:"cards"`    // the rows are laid out as cards
	Wide     []string `json:"wide"`     // when the page is too wide, the first elements past the window
}

// measure is the script that fills a layout. The header check compares
// what the header cells hold (a range over their contents), not the
// cells, which a table never lets overlap: in a column too narrow its
// text spills over its neighbour's.
const measure = `((minChars) => {
	const box = e => e.getBoundingClientRect();
	const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
	const overlaps = [];
	for (const t of document.querySelectorAll("table")) {
		const ths = Array.from(t.querySelectorAll("thead th")).filter(th => box(th).width > 2);
		const content = ths.map(th => { const r = document.createRange(); r.selectNodeContents(th); return r.getBoundingClientRect(); });
		ths.forEach((th, i) => {
			const c = content[i], b = box(th);
			if (c.width > 0 && (c.left < b.left - 1 || c.right > b.right + 1)) { overlaps.push(th.textContent.trim() + " spills out of its cell"); }
			for (let j = i + 1; j < ths.length; j++) {
				if (c.width > 0 && content[j].width > 0 && meets(c, content[j])) { overlaps.push(th.textContent.trim() + " meets " + ths[j].textContent.trim()); }
			}
		});
	}
	// The width of minChars characters in the font of el.
	const chars = el => { const p = document.createElement("span"); p.style.cssText = "display:inline-block;width:" + minChars + "ch"; el.appendChild(p); const w = box(p).width; p.remove(); return w; };
	const narrow = [], held = [];
	for (const sel of ["table.findings details.finding > summary", "table.backfills td.next"]) {
		const el = Array.from(document.querySelectorAll(sel)).find(e => box(e).width > 0);
		if (!el) { continue; }
		const w = chars(el);
		held.push(Math.floor(el.clientWidth * minChars / w));
		if (el.clientWidth < w) { narrow.push(sel + " is " + el.clientWidth + " px, under " + minChars + " characters (" + w + " px)"); }
	}
	const rows = sel => Array.from(document.querySelectorAll(sel)).filter(r => !r.hidden);
	let findings = 0, tallest = "", backfill = 0;
	for (const r of rows("table.findings tbody tr")) { const h = box(r).height; if (h > findings) { findings = h; tallest = r.textContent.trim().slice(0, 80); } }
	for (const r of rows("table.backfills tbody tr")) { backfill = Math.max(backfill, box(r).height); }
	const tr = document.querySelector("table.findings tbody tr, table.backfills tbody tr");
	const docW = document.documentElement.scrollWidth, winW = document.documentElement.clientWidth;
	const wide = docW <= winW ? [] : Array.from(document.querySelectorAll("body *")).filter(e => box(e).right > winW).slice(0, 3)
		.map(e => e.tagName.toLowerCase() + (e.className ? "." + e.className : "") + " ends at " + box(e).right + " px: " + e.textContent.trim().slice(0, 40));
	return {docW, winW, wide, chars: held,
		heads: Array.from(document.querySelectorAll("h2")).map(h => h.textContent.trim()),
		overlaps, narrow, findings, tallest, backfill, cards: !!tr && getComputedStyle(tr).display === "block"};
})`

// checkLayout measures the page as it is laid out now and reports what a
// reader would find wrong; where says at what width or medium.
func checkLayout(t *testing.T, ctx context.Context, c htmlCase, where string, rowBound float64) layout {
	t.Helper()
	var l layout
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf("%s(%d)", measure, minMessageChars), &l)); err != nil {
		t.Fatalf("%s %s: measure: %v", c.name, where, err)
	}
	if l.DocW > l.WinW {
		t.Errorf("%s %s: the page is %v px wide, wider than the window (%v px): %q", c.name, where, l.DocW, l.WinW, l.Wide)
	}
	for _, o := range l.Overlaps {
		t.Errorf("%s %s: header %s", c.name, where, o)
	}
	t.Logf("%s %s: message and next cells hold %v characters; tallest findings row %v px, backfills row %v px", c.name, where, l.Chars, l.Findings, l.Backfill)
	for _, n := range l.Narrow {
		t.Errorf("%s %s: %s", c.name, where, n)
	}
	if rowBound > 0 && l.Findings > rowBound {
		t.Errorf("%s %s: a findings row is %v px tall, over %v (%q)", c.name, where, l.Findings, rowBound, l.Tallest)
	}
	if rowBound > 0 && l.Backfill > rowBound {
		t.Errorf("%s %s: a backfills row is %v px tall, over %v", c.name, where, l.Backfill, rowBound)
	}
	for _, s := range c.sections {
		if !containsString(l.Heads, s) {
			t.Errorf("%s %s: no section %q (sections: %q)", c.name, where, s, l.Heads)
		}
	}
	return l
}

// lookAt opens c.file in a new tab and checks what a reader sees.
func lookAt(t *testing.T, bctx context.Context, c htmlCase, out string) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	var pe pageErrors
	pe.listen(ctx)
	url := "file://" + c.file
	for _, width := range widths {
		err := chromedp.Run(ctx,
			emulation.SetDeviceMetricsOverride(width, 1200, 1, false),
			chromedp.Navigate(url),
			chromedp.WaitReady("body"),
		)
		if err != nil {
			t.Fatalf("%s at %d px: %v", c.name, width, err)
		}
		where := fmt.Sprintf("at %d px", width)
		bound := float64(maxRowHeight)
		if width < 1000 {
			bound = maxCardHeight
		}
		l := checkLayout(t, ctx, c, where, bound)
		if cards := width < 1000; l.Cards != cards {
			t.Errorf("%s %s: rows laid out as cards: %v, want %v", c.name, where, l.Cards, cards)
		}
		if len(c.axeAt) == 0 || slices.Contains(c.axeAt, width) {
			checkAxe(t, ctx, c.name+" "+where)
		}
		// Chromium cannot capture a page taller than 16384 px whole: a long
		// report is captured as far as the window shows.
		var png []byte
		var pageH float64
		shot := chromedp.FullScreenshot(&png, 100) // 100: PNG; below, JPEG
		if err := chromedp.Run(ctx, chromedp.Evaluate(`document.documentElement.scrollHeight`, &pageH)); err == nil && pageH > 16000 {
			shot = chromedp.CaptureScreenshot(&png)
		}
		if err := chromedp.Run(ctx, shot); err != nil {
			t.Fatalf("%s: screenshot: %v", c.name, err)
		}
		write(t, filepath.Join(out, fmt.Sprintf("%s-%d.png", c.name, width)), string(png))
	}
	if docs := os.Getenv("BFAUDIT_BROWSER_DOCS"); docs != "" && c.docs {
		// The docs' screenshots (make screenshots): the first screen as a
		// lead opening the report sees it, at 1280 px and, for the
		// quickstart, at 800 px, where the rows are cards.
		shots := map[string]int64{c.name: 1280}
		if c.name == "quickstart" {
			shots[c.name+"-800"] = 800
		}
		for name, width := range shots {
			var png []byte
			err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(width, 1600, 1, false),
				chromedp.Navigate(url), chromedp.WaitReady("body"), chromedp.CaptureScreenshot(&png))
			if err != nil {
				t.Fatalf("%s: screenshot for docs: %v", name, err)
			}
			write(t, filepath.Join(docs, name+".png"), string(png))
		}
	}
	checkFilterAndSort(t, ctx, c.name)
	checkPrint(t, ctx, c, out)
	checkDark(t, ctx, c, out)
	if errs := pe.list(); len(errs) > 0 {
		t.Errorf("%s: console errors: %q", c.name, errs)
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkFilterAndSort picks the first severity in the filter and expects
// only its rows shown, then sorts by rule and expects rule order.
func checkFilterAndSort(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var res struct {
		Controls bool     `json:"controls"`
		Picked   string   `json:"picked"`
		Visible  []string `json:"visible"`
		Want     int      `json:"want"`
		Status   string   `json:"status"`
		Rules    []string `json:"rules"`
		Search   int      `json:"search"`
	}
	err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const c = document.getElementById("controls");
		const s = document.querySelector('select[data-filter="sev"]');
		const picked = s.options[1].value;
		s.value = picked; s.dispatchEvent(new Event("change"));
		const rows = Array.from(document.querySelectorAll("table.findings tbody tr"));
		const visible = rows.filter(r => !r.hidden).map(r => r.dataset.sev);
		const want = rows.filter(r => r.dataset.sev === picked).length;
		const status = document.getElementById("shown").textContent;
		s.value = ""; s.dispatchEvent(new Event("change"));
		const q = document.getElementById("q");
		const rule = rows[rows.length - 1].dataset.rule;
		q.value = rule; q.dispatchEvent(new Event("input"));
		const search = rows.filter(r => !r.hidden).length;
		q.value = ""; q.dispatchEvent(new Event("input"));
		document.querySelectorAll("table.findings thead th button")[1].click();
		const rules = Array.from(document.querySelectorAll("table.findings tbody tr")).map(r => r.dataset.rule);
		return {controls: !c.hidden, picked, visible, want, status, rules, search};
	})()`, &res))
	if err != nil {
		t.Fatalf("%s: filter and sort: %v", name, err)
	}
	if !res.Controls {
		t.Errorf("%s: the filter controls are not shown with JavaScript on", name)
	}
	if len(res.Visible) != res.Want || res.Want == 0 {
		t.Errorf("%s: filtering severity %q shows %d rows, want %d", name, res.Picked, len(res.Visible), res.Want)
	}
	for _, v := range res.Visible {
		if v != res.Picked {
			t.Errorf("%s: filtering severity %q shows a %q row", name, res.Picked, v)
			break
		}
	}
	if !strings.HasPrefix(res.Status, fmt.Sprintf("%d of ", res.Want)) {
		t.Errorf("%s: status %q after filtering, want %d shown", name, res.Status, res.Want)
	}
	if res.Search == 0 {
		t.Errorf("%s: searching a listed rule id shows no row", name)
	}
	for i := 1; i < len(res.Rules); i++ {
		if strings.ToLower(res.Rules[i-1]) > strings.ToLower(res.Rules[i]) {
			t.Errorf("%s: sorted by rule, %s comes before %s", name, res.Rules[i-1], res.Rules[i])
			break
		}
	}
}

// checkPrint lays the page out for print on A4 (portrait, 12 mm margins:
// 186 mm, about 703 CSS px of content), opens every folded section as the
// report's script does before printing, expects the layout to hold, and
// writes the PDF Chromium prints.
func checkPrint(t *testing.T, ctx context.Context, c htmlCase, out string) {
	t.Helper()
	var pdf []byte
	err := chromedp.Run(ctx,
		emulation.SetEmulatedMedia().WithMedia("print"),
		emulation.SetDeviceMetricsOverride(703, 1000, 1, false),
		chromedp.Evaluate(`window.dispatchEvent(new Event("beforeprint"))`, nil),
	)
	if err != nil {
		t.Fatalf("%s: print: %v", c.name, err)
	}
	checkLayout(t, ctx, c, "on A4", 0)
	err = chromedp.Run(ctx,
		chromedp.ActionFunc(func(ctx context.Context) error {
			var err error
			pdf, _, err = page.PrintToPDF().WithPreferCSSPageSize(true).WithPrintBackground(true).Do(ctx)
			return err
		}),
		chromedp.Evaluate(`window.dispatchEvent(new Event("afterprint"))`, nil),
		emulation.SetEmulatedMedia().WithMedia(""),
	)
	if err != nil {
		t.Fatalf("%s: print: %v", c.name, err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF")) {
		t.Errorf("%s: the print is not a PDF", c.name)
	}
	write(t, filepath.Join(out, c.name+".pdf"), string(pdf))
}

// checkAxe runs axe-core in the page and fails on serious or critical
// violations.
func checkAxe(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	path := os.Getenv("BFAUDIT_TEST_AXE_JS")
	if path == "" {
		t.Log("accessibility not checked: set BFAUDIT_TEST_AXE_JS to axe-core's axe.min.js (npm axe-core; .ci/run installs it)")
		return
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var violations []string
	err = chromedp.Run(ctx,
		chromedp.Evaluate(string(src), nil),
		chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
			.filter(v => v.impact === "serious" || v.impact === "critical")
			.map(v => v.impact + " " + v.id + ": " + v.help + " (" + v.nodes.length + " nodes, e.g. " + v.nodes[0].target.join(" ") + ")"))`,
			&violations, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	)
	if err != nil {
		t.Fatalf("%s: axe: %v", name, err)
	}
	for _, v := range violations {
		t.Errorf("%s: accessibility: %s", name, v)
	}
}

// checkDark looks at the page in the dark colour scheme at 1280 px: a
// lifecycle step not reached must not be drawn as one reached (the trial
// found pending steps solid white, reading as done), and axe must find
// nothing serious there either.
func checkDark(t *testing.T, ctx context.Context, c htmlCase, out string) {
	t.Helper()
	var steps struct {
		Done    string `json:"done"`
		Pending string `json:"pending"`
		Label   string `json:"label"`
	}
	var png []byte
	err := chromedp.Run(ctx,
		emulation.SetDeviceMetricsOverride(1280, 1200, 1, false),
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}),
		chromedp.Evaluate(`(() => {
			const style = sel => { const e = document.querySelector(sel); if (!e) { return ""; } const s = getComputedStyle(e); return s.fill + " " + s.stroke; };
			const svg = document.querySelector("table.backfills svg[aria-label]");
			return {done: style(".step-reached circle"), pending: style(".step-not-reached circle"), label: svg ? svg.getAttribute("aria-label") : ""};
		})()`, &steps),
		chromedp.CaptureScreenshot(&png),
	)
	if err != nil {
		t.Fatalf("%s (dark): %v", c.name, err)
	}
	write(t, filepath.Join(out, c.name+"-dark.png"), string(png))
	if steps.Done != "" && steps.Pending != "" {
		if steps.Done == steps.Pending {
			t.Errorf("%s (dark): a step not reached is drawn as a reached one (%s)", c.name, steps.Pending)
		}
		if !strings.HasPrefix(steps.Pending, "none ") {
			t.Errorf("%s (dark): a step not reached is filled (%s), want a hollow ring", c.name, steps.Pending)
		}
	}
	if !strings.Contains(steps.Label, "steps reached") && !strings.Contains(steps.Label, "not tracked") {
		t.Errorf("%s: the lifecycle chart's label %q does not say how far it got", c.name, steps.Label)
	}
	checkAxe(t, ctx, c.name+" (dark)")
	if err := chromedp.Run(ctx, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}})); err != nil {
		t.Fatal(err)
	}
}

// Without JavaScript the report reads the same: every row shown, no
// controls that do nothing.
func checkNoScript(t *testing.T, bctx context.Context, file string) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	var rows, hidden int
	var controls bool
	err := chromedp.Run(ctx,
		emulation.SetScriptExecutionDisabled(true),
		chromedp.Navigate("file://"+file),
		chromedp.WaitReady("body"),
	)
	if err != nil {
		t.Fatal(err)
	}
	// Evaluate runs even with page scripts disabled (it is the protocol's).
	err = chromedp.Run(ctx,
		chromedp.Evaluate(`document.querySelectorAll("table.findings tbody tr").length`, &rows),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("table.findings tbody tr")).filter(r => r.hidden).length`, &hidden),
		chromedp.Evaluate(`!document.getElementById("controls").hidden`, &controls),
	)
	if err != nil {
		t.Fatal(err)
	}
	if rows == 0 || hidden != 0 || controls {
		t.Errorf("with JavaScript off: %d rows, %d hidden, controls shown %v; want every row and no controls", rows, hidden, controls)
	}
}

func TestHTMLReportInABrowser(t *testing.T) {
	bctx := browser(t)
	out := browserOut(t)
	t.Logf("screenshots and PDFs in %s", out)
	dir := t.TempDir()

	quick := filepath.Join(dir, "quickstart.html")
	if code, _, stderr := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-f", "html", "-o", "html="+quick); code != exitFindings {
		t.Fatalf("quickstart: exit %d: %s", code, stderr)
	}
	lookAt(t, bctx, htmlCase{name: "quickstart", file: quick, sections: []string{"Backfills", "Findings", "Coverage"}, docs: true}, out)
	checkNoScript(t, bctx, quick)

	weekly := twelveWeeks(t)
	lookAt(t, bctx, htmlCase{name: "weekly-12", file: weekly, sections: []string{"Weekly review", "Backfills", "Findings", "Coverage"}, docs: true}, out)

	hostile := filepath.Join(dir, "hostile.html")
	var b bytes.Buffer
	if err := (&reports.Template{Name: "report.html.tmpl", HTML: true}).Write(context.Background(), &b, hostileReport(1000)); err != nil {
		t.Fatal(err)
	}
	write(t, hostile, b.String())
	lookAt(t, bctx, htmlCase{name: "hostile-1000", file: hostile, sections: []string{"Backfills", "Findings", "Coverage"}, axeAt: []int64{1280}}, out)
}

// hostileReport is n findings whose text tries everything: very long
// unbroken names and URIs, right-to-left text, HTML and Markdown
// injection, emoji, and long commands.
func hostileReport(n int) *model.Report {
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	long := strings.Repeat("very_long_table_name_without_any_break_", 12)
	texts := []string{
		`<script>alert("x")</script><img src=x onerror=alert(1)>`,
		"**bold** [link](javascript:alert(1)) | pipe | `code` <!-- comment -->",
		"النسخ الاحتياطي للجدول ما زال موجودًا — טבלה זמנית עדיין קיימת",
		"🔥🧨💥 emoji all the way down 👩‍👩‍👧‍👦🏳️‍🌈",
		long,
	}
	sevs := model.Severities()
	r := &model.Report{Version: model.ReportVersion, Tool: "bfaudit", Now: now,
		Coverage: []model.Coverage{{Source: "bq" + long, System: "bigquery", Status: model.CoverageOK}}}
	r.Summary.BySeverity = map[string]int{}
	r.Summary.ByOwner = map[string]int{}
	for i := range 20 {
		id := fmt.Sprintf("BF-%d", 9000+i)
		r.Backfills = append(r.Backfills, model.BackfillReport{Backfill: &model.Backfill{ID: id, Owner: texts[i%len(texts)], Purpose: texts[(i+1)%len(texts)]},
			Known: true, Findings: n / 20, Lifecycle: model.Lifecycle{Reached: model.StepPlan, Next: model.StepVerified, Blockers: []string{texts[i%len(texts)] + long}}})
	}
	for i := range n {
		sev := sevs[i%len(sevs)]
		owner := []string{"alice@example.com", texts[2], long + "@example.com"}[i%3]
		f := model.Finding{RuleID: fmt.Sprintf("BF0%02d", i%30+1), RuleName: "rule-" + texts[i%len(texts)][:min(20, len(texts[i%len(texts)]))],
			Title: texts[i%len(texts)], Severity: sev, BackfillID: fmt.Sprintf("BF-%d", 9000+i%20), Owner: owner, Team: []string{"payments", "", "ledger " + texts[3]}[i%3],
			ArtifactURI: fmt.Sprintf("bigquery://project-%s/dataset/%s_%d", long, long, i), Message: texts[i%len(texts)] + " " + texts[(i+2)%len(texts)],
			Evidence: []string{texts[(i+3)%len(texts)]}, Remediation: "Drop it: " + texts[(i+4)%len(texts)],
			Fingerprint: fmt.Sprintf("fp%06d", i)}
		r.Findings = append(r.Findings, f)
		r.Summary.BySeverity[sev.String()]++
		r.Summary.ByOwner[owner]++
	}
	r.Summary.Findings, r.Summary.Backfills = n, 20
	return r
}

// twelveWeeks audits a copy of the quickstart with a history store once a
// week for 12 weeks, cleaning some of it up on the way (the notebook in
// week 4, the replay dashboard in week 7, the retry subscription in week
// 10), and returns the HTML of the last audit.
func twelveWeeks(t *testing.T) string {
	t.Helper()
	dir, cfg := quickstartWithHistory(t)
	cleanup := map[int]func(){
		4: func() { os.Remove(filepath.Join(dir, "notebooks/bf_1234_refund_fix.ipynb")) },
		7: func() { os.Remove(filepath.Join(dir, "grafana/dashboards/revenue/bf-1234-refund-replay.json")) },
		10: func() {
			inv := filepath.Join(dir, "inventory/warehouse.yaml")
			b, _ := os.ReadFile(inv)
			write(t, inv, strings.Replace(string(b), "state: active\n    attributes: {messages: \"312\"", "state: deleted\n    attributes: {messages: \"312\"", 1))
		},
	}
	html := filepath.Join(dir, "weekly.html")
	start := time.Date(2026, 9, 7, 8, 0, 0, 0, time.UTC) // a Monday
	for w := range 12 {
		if f := cleanup[w]; f != nil {
			f()
		}
		args := []string{"audit", "-c", cfg, "--now", start.AddDate(0, 0, 7*w).Format(time.RFC3339)}
		if w == 11 {
			args = append(args, "-f", "html", "-o", "html="+html)
		}
		if code, _, stderr := bfaudit(t, args...); code != exitFindings && code != exitOK {
			t.Fatalf("week %d: exit %d: %s", w, code, stderr)
		}
	}
	return html
}
