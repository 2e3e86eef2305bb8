package reports

import (
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"
)

// The terminal table's columns. A table is written in two passes over its
// rows, one to measure and one to write, so a report of a million findings
// is never held a second time as text (TestWritersStream): this is why the
// layout is not a table library's, which keeps every row until it renders.
//
// Widths are terminal cells, as go-runewidth counts them: an East Asian
// wide rune takes two. Colour codes are never part of a cell's text (they
// are added around it as it is written), so they take no room.

// cellWidth measures text. Ambiguous runes such as "…" count as narrow
// whatever the locale, so a report reads the same on every machine.
var cellWidth = &runewidth.Condition{StrictEmojiNeutral: true}

func textWidth(s string) int { return cellWidth.StringWidth(s) }

// give is how a column gives way when the table is wider than the terminal.
type give int

const (
	whole  give = iota // shown whole, or left out
	middle             // shortened in the middle: keeps the scheme and the end, which tells two apart
	end                // cut at its end, keeping the cell's count of more
	// wrap is wrapped over at most wrapLines lines, then cut at its end.
	// When the other columns leave it less than its comfortable width, it
	// goes under its row instead, from the second column on, over at most
	// wrapLines-1 lines: a message at 80 columns reads as two lines of
	// prose, not as a strip of ten words.
	wrap
)

// wrapLines is the most lines a row takes on a terminal.
const wrapLines = 3

// column is one column of a terminal table.
type column struct {
	header string
	give   give
	// rank orders columns by importance, 0 first: the least important is
	// left out first, the most important widened first.
	rank int
	// drop says the column may be left out on a narrow terminal: it is
	// when, at its narrowest, it would keep a more important column from
	// its comfortable width.
	drop bool
	// min is the narrowest a shortened column gets; comfy the width it is
	// widened to before the last column takes the rest; max the widest
	// it is on a terminal (0: no cap). None applies without a width.
	min, comfy, max int
}

// cell is what a row puts in a column.
type cell struct {
	text string
	// more is kept after text when the cell is cut: "(+3 more)".
	more string
	// color is the ANSI code the text is written in; "" for none.
	color string
}

func (c cell) width() int {
	w := textWidth(c.text)
	if c.more != "" {
		w += 1 + textWidth(c.more)
	}
	return w
}

// grid writes a table of n rows, each made by row(i, cells) into the same
// cells, and returns the headers of the columns it left out for the width.
// With no width every cell is whole, on one line.
func (p *printer) grid(cols []column, n int, row func(i int, cells []cell)) (left []string) {
	cells := make([]cell, len(cols))
	natural := make([]int, len(cols))
	for j, c := range cols {
		natural[j] = textWidth(c.header)
	}
	for i := range n {
		clear(cells)
		row(i, cells)
		for j := range cells {
			cells[j].text = cellText(cells[j].text)
			natural[j] = max(natural[j], cells[j].width())
		}
	}
	widths, under := fit(cols, natural, p.width)
	for j, w := range widths {
		if w == 0 && j != under {
			left = append(left, cols[j].header)
		}
	}
	indent := 0 // where a cell under its row starts: the second column
	for _, w := range widths {
		if w > 0 {
			indent = w + 2
			break
		}
	}
	lines := make([][]string, len(cols))
	write := func(header bool) {
		height := 1
		for j, c := range cols {
			lines[j] = lines[j][:0]
			switch w := widths[j]; {
			case w == 0:
			case p.width <= 0 || cells[j].width() <= w:
				text := cells[j].text
				if cells[j].more != "" {
					text += " " + cells[j].more
				}
				lines[j] = append(lines[j], text)
			case c.give == wrap:
				lines[j] = wrapText(lines[j], cells[j].text, w, wrapLines)
			case c.give == middle:
				lines[j] = append(lines[j], shortenMiddle(cells[j].text, w))
			default:
				lines[j] = append(lines[j], shortenEnd(cells[j].text, cells[j].more, w))
			}
			height = max(height, len(lines[j]))
		}
		for k := range height {
			at, start := 0, 0 // where the line is, where the column starts
			for j, w := range widths {
				if w == 0 {
					continue
				}
				if k < len(lines[j]) && lines[j][k] != "" {
					p.pad(start - at)
					p.paint(cells[j].color, lines[j][k])
					at = start + textWidth(lines[j][k])
				}
				start += w + 2
			}
			p.s("\n")
		}
		if under >= 0 && !header {
			for _, l := range wrapText(lines[under], cells[under].text, p.width-indent, wrapLines-1) {
				p.pad(indent)
				p.s(l)
				p.s("\n")
			}
		}
	}
	for j, c := range cols {
		cells[j] = cell{text: c.header}
	}
	write(true)
	for i := range n {
		clear(cells)
		row(i, cells)
		for j := range cells {
			cells[j].text = cellText(cells[j].text)
		}
		write(false)
	}
	return left
}

// fit chooses each column's width for a terminal width cells wide (0: no
// limit), 0 for a column left out, and says which column goes under its
// row (-1: none). Natural widths when they fit; otherwise every column at
// its narrowest, the least important left out while it keeps a more
// important one from its comfortable width, and the room left handed out:
// up to each column's comfortable width, the most important first, then
// to the last column (the one that reads as prose), then to the rest.
func fit(cols []column, natural []int, width int) ([]int, int) {
	w := slices.Clone(natural)
	if width <= 0 {
		return w, -1
	}
	for j, c := range cols {
		if c.max > 0 {
			w[j] = min(w[j], c.max)
		}
	}
	capped := slices.Clone(w)
	if span(w) <= width {
		return w, -1
	}
	narrow := make([]int, len(cols)) // each column at its narrowest
	comfy := make([]int, len(cols))  // and at its comfortable width
	for j, c := range cols {
		narrow[j], comfy[j] = capped[j], capped[j]
		if c.give != whole {
			narrow[j] = min(capped[j], max(c.min, textWidth(c.header)))
			comfy[j] = min(capped[j], max(c.comfy, narrow[j]))
		}
	}
	under := -1
	for j, c := range cols {
		if c.give != wrap {
			continue
		}
		others := slices.Clone(comfy)
		others[j] = 0
		if width-span(others)-2 < comfy[j] {
			under, w[j], narrow[j], comfy[j] = j, 0, 0, 0
		}
	}
	byRank := make([]int, len(cols))
	for j := range byRank {
		byRank[j] = j
	}
	slices.SortStableFunc(byRank, func(a, b int) int { return cols[a].rank - cols[b].rank })
	// need is how wide the table is with the columns more important than
	// the k-th comfortable and the others at their narrowest.
	need := func(k int) int {
		ws := make([]int, len(cols))
		for i, j := range byRank {
			if ws[j] = narrow[j]; i < k {
				ws[j] = comfy[j]
			}
		}
		return span(ws)
	}
	for k := len(byRank) - 1; k >= 0; k-- {
		if j := byRank[k]; cols[j].drop && narrow[j] > 0 && need(k) > width {
			narrow[j], comfy[j] = 0, 0
		}
	}
	copy(w, narrow)
	left := width - span(w)
	grow := func(j, to int) {
		if add := min(left, to-w[j]); w[j] > 0 && add > 0 {
			w[j] += add
			left -= add
		}
	}
	for _, j := range byRank {
		grow(j, comfy[j])
	}
	for j := len(w) - 1; j >= 0; j-- {
		if w[j] > 0 {
			grow(j, capped[j])
			break
		}
	}
	for _, j := range byRank {
		grow(j, capped[j])
	}
	return w, under
}

// span is how wide a row of columns this wide is, two spaces apart.
func span(widths []int) int {
	n, shown := 0, 0
	for _, w := range widths {
		if w > 0 {
			n, shown = n+w, shown+1
		}
	}
	return n + 2*max(shown-1, 0)
}

// shortenMiddle fits s in w cells by cutting its middle: an identifier's
// end tells it from its neighbours (the account, the key, the table) and
// its start says what system it is in, so both stay:
// "gcpiam://shop-analytics/…/keys/8a1f0c2d…". JSON and HTML keep it whole.
func shortenMiddle(s string, w int) string {
	if textWidth(s) <= w {
		return s
	}
	if w < 2 {
		return cellWidth.Truncate(s, w, "")
	}
	// The start gets at most half: the end tells more.
	head := ""
	for _, h := range heads(s) {
		if textWidth(h) <= w/2 {
			head = h
		}
	}
	if head == "" {
		head = cellWidth.Truncate(s, (w-1)/3, "")
	}
	return head + cellWidth.TruncatePrefix(s[len(head):], w-textWidth(head), "…")
}

// heads are the starts of s that name its system, shortest first: the
// scheme ("gcpiam://"), then the scheme and the first segment after it
// ("gcpiam://shop-analytics/"), or the first segment of a path or an ID
// ("plans/", "airflow:").
func heads(s string) []string {
	var hs []string
	rest, from := s, 0
	if i := strings.Index(s, "://"); i >= 0 {
		rest, from = s[i+3:], i+3
		hs = append(hs, s[:from])
	}
	if i := strings.IndexAny(rest, "/:"); i >= 0 {
		hs = append(hs, s[:from+i+1])
	}
	return hs
}

// shortenEnd fits text, then more, in w cells, cutting text's end.
func shortenEnd(text, more string, w int) string {
	if more == "" {
		return cellWidth.Truncate(text, w, "…")
	}
	if room := w - 1 - textWidth(more); room >= 2 {
		return cellWidth.Truncate(text, room, "…") + " " + more
	}
	return cellWidth.Truncate(text+" "+more, w, "…")
}

// wrapText appends s to lines, broken at spaces into lines of at most w
// cells, a word longer than a line cut; past most lines the last is cut
// with "…". w <= 0 keeps s whole.
func wrapText(lines []string, s string, w, most int) []string {
	if w <= 0 || textWidth(s) <= w {
		return append(lines, s)
	}
	start := len(lines)
	var cur strings.Builder
	curW := 0
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curW = 0
	}
	for _, word := range strings.Fields(s) {
		ww := textWidth(word)
		if curW > 0 && curW+1+ww > w {
			flush()
		}
		if curW > 0 {
			cur.WriteByte(' ')
			curW++
		}
		for curW+ww > w {
			piece := cellWidth.Truncate(word, w-curW, "")
			if piece == "" && curW == 0 {
				piece = string([]rune(word)[:1]) // a rune wider than the line
			}
			cur.WriteString(piece)
			flush()
			word = word[len(piece):]
			ww = textWidth(word)
		}
		cur.WriteString(word)
		curW += ww
	}
	if curW > 0 {
		flush()
	}
	if most > 0 && len(lines)-start > most {
		last := lines[start+most-1] + " " + lines[start+most]
		// The two joined are wider than a line, so the cut shows.
		lines = append(lines[:start+most-1], cellWidth.Truncate(last, w, "…"))
	}
	return lines
}

// para writes prose to the width, its later lines indented by indent
// spaces; nothing is cut. No width writes it on one line.
func (p *printer) para(indent int, s string) {
	w := 0
	if p.width > 0 {
		w = max(p.width-indent, 20)
	}
	for k, l := range wrapText(nil, oneLine(s), w, 0) {
		if k > 0 {
			p.pad(indent)
		}
		p.s(l)
		p.s("\n")
	}
}

// paint writes text in an ANSI colour code ("" for none).
func (p *printer) paint(code, text string) {
	if code == "" {
		p.s(text)
		return
	}
	p.s(code)
	p.s(text)
	p.s("\x1b[0m")
}

// Wrap breaks s at spaces into lines of at most w terminal cells (w <= 0:
// one line), for other terminal text that must fit the same width.
func Wrap(s string, w int) []string { return wrapText(nil, s, w, 0) }

// Cut shortens s to w terminal cells, ending it with "…" when cut.
func Cut(s string, w int) string {
	if w <= 1 || textWidth(s) <= w {
		return s
	}
	return cellWidth.Truncate(s, w, "…")
}
