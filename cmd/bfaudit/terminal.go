package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/bfaudit/bfaudit/reports"
)

// isTerminal reports whether w is a terminal (not a file, pipe or buffer).
func isTerminal(w io.Writer) bool {
	f, ok := underlying(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colorOn says whether what goes to w may be coloured: only on a
// terminal, and never with --no-color or NO_COLOR set to anything
// (no-color.org).
func (g *globals) colorOn(w io.Writer) bool {
	return !g.noColor && os.Getenv("NO_COLOR") == "" && isTerminal(w)
}

// terminalWidth is the width to lay the table out in when it goes to w
// (reports.WidthFor: $COLUMNS, else the terminal's width, else no limit).
func terminalWidth(w io.Writer) int { return reports.WidthFor(underlying(w), os.Getenv) }

// underlying is the writer behind run's serialWriter, whose file says
// whether it is a terminal and how wide.
func underlying(w io.Writer) io.Writer {
	if s, ok := w.(*serialWriter); ok {
		return s.w
	}
	return w
}
