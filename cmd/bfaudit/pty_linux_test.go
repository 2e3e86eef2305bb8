//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal cols wide: term is the side a program
// writes to (a terminal to it), and output closes it and returns what was
// written, with the terminal's \r\n turned back into \n.
func openPTY(t *testing.T, cols int) (term *os.File, output func() string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("no pseudo-terminal here: unlock: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(term.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 32<<10)
		for {
			n, err := master.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return term, func() string {
		term.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		mu.Lock()
		defer mu.Unlock()
		return strings.ReplaceAll(buf.String(), "\r\n", "\n")
	}
}

// Trial friction 10: colour only on a terminal and never with --no-color
// or NO_COLOR; the width is COLUMNS, else the terminal's.
func TestColourAndWidthOnATerminal(t *testing.T) {
	t.Setenv("COLUMNS", "")
	term, output := openPTY(t, 90)
	if w := terminalWidth(term); w != 90 {
		t.Errorf("terminal width %d, want the terminal's 90", w)
	}
	t.Setenv("COLUMNS", "130")
	if w := terminalWidth(term); w != 130 {
		t.Errorf("terminal width %d, want COLUMNS 130", w)
	}
	output()
	t.Setenv("COLUMNS", "")
	if w := terminalWidth(&bytes.Buffer{}); w != 0 {
		t.Errorf("width %d off a terminal, want 0", w)
	}

	audit := func(env string, extra ...string) string {
		t.Helper()
		t.Setenv("NO_COLOR", env)
		term, output := openPTY(t, 100)
		var errb bytes.Buffer
		code := run(append([]string{"audit", "-c", quickstart, "--now", "2026-11-30"}, extra...), term, &errb)
		out := output()
		if code != exitFindings {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out
	}
	if out := audit(""); !strings.Contains(out, "\x1b[") {
		t.Errorf("no colour on a terminal:\n%.500s", out)
	}
	if out := audit("1"); strings.Contains(out, "\x1b[") {
		t.Errorf("colour despite NO_COLOR=1:\n%.500q", out)
	}
	if out := audit("", "--no-color"); strings.Contains(out, "\x1b[") {
		t.Errorf("colour despite --no-color:\n%.500q", out)
	}
	_, out, _ := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30")
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour off a terminal:\n%.500q", out)
	}
}

// Trial friction 11, on a terminal: the running sources are redrawn in
// place on stderr, and each finished source keeps one line.
func TestProgressOnATerminal(t *testing.T) {
	term, output := openPTY(t, 100)
	var out bytes.Buffer
	code := run([]string{"audit", "-c", quickstart, "--now", "2026-11-30", "-f", "json"}, &out, term)
	stderr := output()
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "\r\x1b[J") {
		t.Errorf("the live lines are not redrawn in place:\n%q", stderr)
	}
	for _, src := range []string{"plans (records): ok in ", "scheduler (airflow): ok in ", "flags (unleash): ok in "} {
		if n := strings.Count(stderr, src); n != 1 {
			t.Errorf("%q shown %d times, want once:\n%s", src, n, stderr)
		}
	}
	if strings.Contains(stderr, "source note") {
		t.Errorf("a stray log record:\n%s", stderr)
	}
	// Finished lines are wrapped and live lines cut to the terminal's 100
	// columns: a line the terminal wraps itself spoils the next redraw.
	plain := regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]|\r`).ReplaceAllString(stderr, "")
	for _, line := range strings.Split(plain, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("a progress line of %d columns on a 100-column terminal: %q", n, line)
		}
	}
}
