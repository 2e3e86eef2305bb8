package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/model"
)

type auditFlags struct {
	from    string
	formats []string
	outputs []string
	failOn  string
	dryRun  bool
	force   bool
}

func newAuditCmd(g *globals) *cobra.Command {
	var f auditFlags
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Collect, correlate, evaluate and report",
		Long: `Collect from every configured source (or read a saved estate with --from),
tie artifacts to backfills, run the rules and write the reports.`,
		Example: `  bfaudit audit --config bfaudit.yaml
  bfaudit audit --config bfaudit.yaml --format table,json --output json=report.json --fail-on medium
  bfaudit audit --from estate.json --now 2026-11-30`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAudit(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "audit a saved estate (from `bfaudit collect --out`) without touching any system")
	fl.StringSliceVarP(&f.formats, "format", "f", nil, "report formats: table, json, markdown, html, sarif (comma-separated or repeated)")
	fl.StringArrayVarP(&f.outputs, "output", "o", nil, "write a format to a file: FORMAT=PATH (repeatable); a bare PATH applies to the only format")
	fl.StringVar(&f.failOn, "fail-on", "", "exit 1 when a finding is at or above this severity (critical, high, medium, low, info)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "show what sinks (GitHub, Slack) would do without doing it; the run is not recorded in history")
	fl.BoolVar(&f.force, "force", false, "post the Slack digest even if this period's was already posted")
	return cmd
}

func runAudit(cmd *cobra.Command, g *globals, f auditFlags) error {
	now, err := g.clock()
	if err != nil {
		return err
	}
	cfg, err := g.loadConfig(f.from != "")
	if err != nil {
		return err
	}
	failOn := cfg.FailOn
	if f.failOn != "" {
		if failOn, err = model.ParseSeverity(f.failOn); err != nil {
			return usageError(fmt.Errorf("--fail-on: %w", err))
		}
	}
	plan, err := planOutputs(cfg, f.formats, f.outputs)
	if err != nil {
		return usageError(err)
	}
	var est *model.Estate
	if f.from != "" {
		if est, err = audit.LoadEstate(f.from); err != nil {
			return usageError(err)
		}
	} else {
		g.log.Debug("collecting", slog.Int("sources", len(cfg.Instances)))
		progress(g, "collecting from %d sources...", len(cfg.Instances))
		if est, err = audit.Collect(cmd.Context(), cfg.Instances, cfg.Selector, cfg.Concurrency, now); err != nil {
			return &exitError{code: exitIncomplete, err: err}
		}
		progress(g, "")
	}
	logCoverage(g, est)
	result := audit.Evaluate(est, cfg.Selector, cfg.Engine, now)
	report := result.Report
	sinkErr := runSinks(cmd, g, cfg, result, f)
	if err := writeReports(cmd.Context(), g, cfg, plan, report); err != nil {
		return usageError(err)
	}
	switch {
	case !report.Summary.Complete:
		return &exitError{code: exitIncomplete}
	case sinkErr != nil:
		return &exitError{code: exitIncomplete, err: sinkErr}
	case report.Failing(failOn):
		return &exitError{code: exitFindings}
	}
	return nil
}

func logCoverage(g *globals, est *model.Estate) {
	for _, c := range est.Coverage {
		switch c.Status {
		case model.CoverageFailed:
			g.log.Warn("source failed", slog.String("source", c.Source), slog.String("error", c.Error))
		case model.CoverageDegraded:
			g.log.Warn("source degraded", slog.String("source", c.Source), slog.Int("errors", len(c.Errors)))
		}
	}
}

// progress shows collection progress on a terminal only, never in CI logs.
func progress(g *globals, format string, args ...any) {
	if !isTerminal(g.stderr) {
		return
	}
	if format == "" {
		fmt.Fprint(g.stderr, "\r\x1b[K")
		return
	}
	fmt.Fprintf(g.stderr, "\r\x1b[K"+format, args...)
}
