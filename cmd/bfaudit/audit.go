package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/reports/metrics"
)

type auditFlags struct {
	filter   filterFlags
	from     []string
	formats  []string
	outputs  []string
	failOn   string
	dryRun   dryRunFlag
	force    bool
	deadline time.Duration
	metrics  string
}

func newAuditCmd(g *globals) *cobra.Command {
	var f auditFlags
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Collect, correlate, evaluate and report",
		Long: `Collect from every configured source (or read a saved estate with --from),
tie artifacts to backfills, run the rules and write the reports.

The run has a deadline (--deadline, or deadline: in the config; default 30m).
When it passes, or on SIGINT or SIGTERM, collection stops, the reports are
written from what was collected (sources that had not finished count as not
answered, so nothing of theirs is ticked, closed or resolved), the reports
say the run is incomplete, and the exit code is 3.

--severity, --owner and --backfill narrow what the reports show, and the
exit status judges only what is shown; the history store, GitHub, Slack
and the metrics still get every finding, so a narrowed run never resolves
or closes anything it does not show.`,
		Example: `  bfaudit audit --config bfaudit.yaml
  bfaudit audit --config bfaudit.yaml --format table,json --output json=report.json --fail-on medium
  bfaudit audit --config bfaudit.yaml -o out/report.html
  bfaudit audit --config bfaudit.yaml --severity high --owner alice --fail-on never
  bfaudit audit --config bfaudit.yaml --deadline 10m
  bfaudit audit --from estate.json --now 2026-11-30
  bfaudit audit --from shard-0.json --from shard-1.json
  bfaudit audit --from estates/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && f.dryRun.on() {
				return usageError(fmt.Errorf("unexpected argument %q: --dry-run takes a file with '=' (--dry-run=%s)", args[0], args[0]))
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runAudit(cmd, g, f) },
	}
	fl := cmd.Flags()
	// A backquoted word in a usage is the flag's value name in --help.
	fl.StringArrayVar(&f.from, "from", nil, "audit the estate in `FILE` (written by bfaudit collect --out) without touching any system; "+
		"repeat it, name a directory (every *.json in it) or a quoted glob, to merge estates, such as the shards of collect --shard")
	fl.StringSliceVarP(&f.formats, "format", "f", nil, "report `FORMAT`s: "+formatList()+" (comma-separated or repeated; default report.formats in the config, table)")
	fl.StringArrayVarP(&f.outputs, "output", "o", nil, "write a format to a file: `FORMAT=PATH` (repeatable; its folder is made if missing); "+
		"a bare PATH takes the only --format, or without --format the one its extension names (.json, .html, .md, .sarif, .txt)")
	fl.StringVar(&f.failOn, "fail-on", "", failOnUsage)
	f.filter.register(fl)
	fl.Var(&f.dryRun, "dry-run", "print what the sinks (GitHub, Slack) would do as JSON Lines and do none of it, nor record the run in history; "+
		"bare, the plan goes to stdout (the report meant for stdout to stderr); --dry-run=FILE writes it to FILE")
	fl.Lookup("dry-run").NoOptDefVal = "true"
	fl.BoolVar(&f.force, "force", false, "post the Slack digest even if this period's was already posted")
	fl.StringVar(&f.metrics, "metrics", "", "write the run's Prometheus metrics to `FILE` for node_exporter's textfile collector "+
		"(a *.prom file in its folder; replaced atomically; docs/reports/metrics.md)")
	fl.DurationVar(&f.deadline, "deadline", 0, "stop the whole run after this `DURATION` and report what was collected, marked incomplete (default: deadline in the config, 30m)")
	return cmd
}

// finishBudget is how long the history store, the sinks' last words and the
// report files get once the run's deadline or a signal has ended it.
var finishBudget = 30 * time.Second // a variable so a test can shorten it

// digestLease is how long a Slack message claim holds before a rerun takes
// it over (history.DefaultDigestLease); a variable so a test that kills
// runs can rerun at once instead of waiting out the lease.
var digestLease = history.DefaultDigestLease

func runAudit(cmd *cobra.Command, g *globals, f auditFlags) error {
	sw := remote.StartStopwatch()
	now, err := g.clock()
	if err != nil {
		return err
	}
	cfg, err := g.loadConfig(len(f.from) > 0)
	if err != nil {
		return err
	}
	failOn, err := resolveFailOn(f.failOn, cfg)
	if err != nil {
		return err
	}
	filt, err := f.filter.parse()
	if err != nil {
		return usageError(err)
	}
	deadline := cfg.Deadline
	if cmd.Flags().Changed("deadline") {
		if f.deadline <= 0 {
			return usageError(fmt.Errorf("--deadline: must be positive, got %s", f.deadline))
		}
		deadline = f.deadline
	}
	plan, err := planOutputs(cfg, f.formats, f.outputs)
	if err != nil {
		return usageError(err)
	}
	if f.metrics != "" {
		if err := makeDir(f.metrics); err != nil {
			return usageError(fmt.Errorf("--metrics: %w", err))
		}
		if err := metrics.CheckFile(f.metrics); err != nil {
			return usageError(fmt.Errorf("--metrics: %w", err))
		}
	}
	// The dry-run plan's stream is opened before anything runs, so a path
	// that cannot be written fails the run at once.
	dry, err := openDryRun(g, f.dryRun)
	if err != nil {
		return usageError(err)
	}
	defer dry.close()
	reportOut := g.stdout
	if dry.onStdout {
		// stdout carries the plan alone, so it can be piped to jq.
		reportOut = g.stderr
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), deadline)
	defer cancel()
	// What must still happen after the run was stopped (record, write)
	// gets a short budget of its own, counted from the moment it stopped:
	// after an early SIGTERM (a node drain) the pod's grace period, not the
	// run's deadline, is what is left.
	finish, cancelFinish := context.WithCancel(context.WithoutCancel(cmd.Context()))
	defer cancelFinish()
	stopFinishClock := context.AfterFunc(ctx, func() { time.AfterFunc(finishBudget, cancelFinish) })
	defer stopFinishClock()

	run := audit.Plan{Instances: cfg.Instances, Concurrency: cfg.Concurrency, Selector: cfg.Selector,
		Engine: cfg.Engine, Now: now, Due: cfg.DuePolicy, Teams: cfg.Teams, Deadline: deadline}
	var prog *progress
	if len(f.from) > 0 {
		if run.Estate, err = loadEstates(g, f.from); err != nil {
			return usageError(err)
		}
	} else {
		g.log.Debug("collecting", slog.Int("sources", len(cfg.Instances)), slog.Duration("deadline", deadline))
		prog = g.startProgress(len(cfg.Instances))
		ctx = collectors.WithObserver(ctx, prog)
	}
	var store *history.Store
	if cfg.History != nil {
		if store, err = history.Open(finish, *cfg.History, history.WithDue(cfg.DuePolicy), history.WithDigestLease(digestLease),
			history.WithTeams(cfg.Teams)); err != nil {
			run.Problems = append(run.Problems, fmt.Errorf("history: %w", err))
		} else {
			defer store.Close()
			run.Memory = store
		}
	}
	run.Deliver = func(finish context.Context, a *audit.Audit, problem func(error)) {
		prog.close() // collection is over
		for _, err := range runSinks(ctx, finish, g, cfg, a, store, f, dry.w) {
			problem(err)
		}
	}
	run.Measure = func(finish context.Context, a *audit.Audit, problem func(error)) {
		writeMetrics(finish, g, cfg, a.Report, sw, f, dry.w, problem)
	}
	result, errs := audit.Run(ctx, finish, run)
	report := result.LetGo()
	if err := dry.close(); err != nil {
		errs = append(errs, err)
	}
	// Everything above saw every finding; the filters narrow only what
	// is shown, and what the exit status judges.
	shown := filt.apply(report)
	if err := writeReports(finish, g, reportOut, cfg, plan, shown); err != nil {
		return usageError(err)
	}
	errs = append(errs, coverageErrors(report.Coverage, prog)...)
	switch {
	case !report.Summary.Complete || len(errs) > 0:
		return &exitError{code: exitIncomplete, err: errors.Join(errs...)}
	case failOn.failing(shown.Findings):
		return &exitError{code: exitFindings}
	}
	return nil
}

// coverageErrors are the sources that did not answer fully, one error
// each for stderr, but for those whose progress line said why already:
// one line for all of those.
func coverageErrors(cov []model.Coverage, p *progress) []error {
	var errs []error
	told := 0
	for _, c := range cov {
		switch {
		case c.Full():
		case p.toldOf(c):
			told++
		default:
			errs = append(errs, coverageError(c))
		}
	}
	if told > 0 {
		errs = append(errs, fmt.Errorf("%s did not answer fully (see above): the reports are incomplete", plural(told, "source")))
	}
	return errs
}

// coverageError is a source that did not answer fully, as one line for
// stderr, naming every unit that failed.
func coverageError(c model.Coverage) error {
	if c.Failed() {
		return fmt.Errorf("source %s (%s) failed: %s", c.Source, c.System, c.Error)
	}
	units := make([]error, 0, len(c.Errors))
	for _, e := range c.Errors {
		units = append(units, fmt.Errorf("source %s (%s) did not answer for %s: %s", c.Source, c.System, orWhole(e.Scope), e.Error))
	}
	return errors.Join(units...)
}

func orWhole(scope string) string {
	if scope == "" {
		return "the whole source"
	}
	return scope
}
