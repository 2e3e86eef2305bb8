package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/internal/httplog"
	"github.com/bfaudit/bfaudit/internal/redact"
)

// globals are the flags every command shares.
type globals struct {
	configPath string
	now        string
	verbose    bool
	quiet      bool
	noColor    bool
	v          *viper.Viper
	stdout     io.Writer
	stderr     io.Writer
	log        *slog.Logger
}

// run executes the command line and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	// The logger, the progress lines and the error lines all write to
	// stderr, from the sources' goroutines too: one write at a time, so
	// no line is cut into another.
	stderr = &serialWriter{w: stderr}
	g := &globals{v: config.NewViper(), stdout: stdout, stderr: stderr}
	root := newRoot(g)
	stopProfiling := withProfiling(root)
	defer stopProfiling()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// SIGINT (a terminal) and SIGTERM (Kubernetes, timeout(1)) end the run
	// the same way its deadline does: reports are still written, exit 3.
	// A second signal gets the default behaviour back and kills at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := codeOf(err)
	var ee *exitError
	if !errors.As(err, &ee) || ee.err != nil {
		for _, line := range strings.Split(redact.String(err.Error()), "\n") {
			fmt.Fprintln(stderr, "bfaudit:", line)
		}
	}
	return code
}

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "bfaudit",
		Short: "Audit backfill machinery: find what replays left behind and drive owners to close it",
		Long: `bfaudit scans schedulers, warehouses, queues and access rules for the temporary
machinery backfills leave behind, ties each piece to its backfill, flags what
lingers with a rule engine, and reports: terminal, JSON, Markdown, HTML, SARIF,
GitHub issues and Slack digests.

Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it;
2 bad usage or config; 3 the audit ran but some source or sink failed.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			g.log = newLogger(g.stderr, g.verbose, g.quiet)
			if memory.Set > 0 {
				g.log.Debug("memory limit", "soft_limit_bytes", memory.Set, "limit_bytes", memory.Limit, "why", memory.Why)
			} else if memory.Why != "" {
				g.log.Debug("memory limit not set", "why", memory.Why)
			}
			// Sources and sinks log each HTTP call to it at debug level.
			cmd.SetContext(httplog.WithLogger(cmd.Context(), g.log))
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError(suggestFlag(cmd, err)) })
	pf := root.PersistentFlags()
	pf.StringVarP(&g.configPath, "config", "c", os.Getenv("BFAUDIT_CONFIG"), "config `FILE` (env BFAUDIT_CONFIG)")
	pf.StringVar(&g.now, "now", "", "audit as of this `TIME` (RFC 3339 or YYYY-MM-DD) instead of the clock, for reproducible runs")
	pf.BoolVarP(&g.verbose, "verbose", "v", false, "debug logging, with every HTTP call to a source or sink (method, URL without credentials, status, duration)")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "no progress lines nor info logs on stderr (warnings and errors still show)")
	pf.BoolVar(&g.noColor, "no-color", false, "no colour in the terminal table (so does NO_COLOR set to anything); colour is only ever used on a terminal")
	root.AddCommand(newAuditCmd(g), newCollectCmd(g), newPlanCmd(g), newRulesCmd(g), newConfigCmd(g), newVersionCmd(g))
	root.AddCommand(newFixCmd(g))
	return root
}

// clock returns the audit time: --now, or the current time.
func (g *globals) clock() (time.Time, error) {
	if g.now == "" {
		return time.Now().UTC(), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, g.now); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, usageError(fmt.Errorf("--now: %q is not a time (expected RFC 3339 such as 2026-11-30T09:00:00Z, or 2026-11-30)", g.now))
}

// loadConfig reads the config file (required unless allowEmpty).
func (g *globals) loadConfig(allowEmpty bool) (*config.Config, error) {
	if g.configPath == "" && !allowEmpty {
		return nil, usageError(errors.New("no config: pass --config FILE (see `bfaudit config sample`)"))
	}
	now, err := g.clock()
	if err != nil {
		return nil, err
	}
	c, err := config.Load(g.v, g.configPath)
	if err != nil {
		return nil, usageError(err)
	}
	c.Now = func() time.Time { return now }
	return c, nil
}

// newLogger logs text on a terminal and JSON otherwise (CI, cron); at
// debug level with --verbose, warnings and errors only with --quiet.
func newLogger(w io.Writer, verbose, quiet bool) *slog.Logger {
	level := slog.LevelInfo
	switch {
	case verbose:
		level = slog.LevelDebug
	case quiet:
		level = slog.LevelWarn
	}
	// Every string and error logged passes the redactor: errors carry what
	// servers answered, and servers echo requests.
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		switch a.Value.Kind() {
		case slog.KindString:
			a.Value = slog.StringValue(redact.String(a.Value.String()))
		case slog.KindAny:
			if err, ok := a.Value.Any().(error); ok {
				a.Value = slog.StringValue(redact.String(err.Error()))
			}
		}
		return a
	}}
	if isTerminal(w) {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// serialWriter lets one Write through at a time.
type serialWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *serialWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
