package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/reports/history"
)

type fixFlags struct {
	filter   filterFlags
	from     []string
	format   string
	output   string
	apply    bool
	due      bool
	dryRun   bool
	deadline time.Duration
}

func newFixCmd(g *globals) *cobra.Command {
	var f fixFlags
	cmd := &cobra.Command{
		Use:   "fix",
		Short: "Print the cleanup of a backfill as a script, in lifecycle order; --apply does its safe part",
		Long: `Audit as bfaudit audit does (or read a saved estate with --from), then print the
exact commands that clear each open finding (bq, gcloud, kubectl, airflow,
amtool, rabbitmqadmin, SQL for psql), names quoted, in lifecycle order:
verify, normalize, revoke access, archive the decision record, and only
then delete temporary tables and job definitions.
Steps that must wait are printed commented out, with the reason; what only a
person can do (write the decision record) comes with a filled template.
Waived findings get nothing (--due lists them, held).

--apply acts instead of printing, through the systems' APIs, on the commands
that may run now and are reversible (pause_job, expire_role, disable_key) or
named in fix.allow in the config; each artifact is read again just before,
and skipped if it changed since the audit. Every action is recorded in the
history store (who, what, when, the state before). Exit 3 if any action
failed. --dry-run lists what --apply would do, one line per item, touching
nothing.

--due acts on the due dates: a command runs (or, in the script, is live)
only for a finding past its due date whose owner was told of it at least
due.notice_days before, as the history store proves (due dates and notices
as of today, or --now). The others are held with the reason: not due (due
in 3d), not announced (owner never notified, or notified only 1d ago),
waived; a step blocked by the lifecycle order still waits. Human acts are
unaffected. --due needs a history: section.

--backfill (repeat it or comma-separate), --owner and --severity narrow the
plan to the findings shown; a step still waits on earlier steps blocked by
findings left out. --format text and table name the script too; with no
--format, an --output ending in .json gets JSON.`,
		Example: `  bfaudit fix --config bfaudit.yaml --backfill BF-1234 > cleanup.sh
  bfaudit fix --from estate.json --backfill BF-1234 --format json
  bfaudit fix --config bfaudit.yaml --backfill BF-1234 --apply
  bfaudit fix --config bfaudit.yaml --due --dry-run
  bfaudit fix --config bfaudit.yaml --due --apply
  bfaudit fix --config bfaudit.yaml --owner alice --severity high -o out/plan.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFix(cmd, g, f) },
	}
	fl := cmd.Flags()
	f.filter.register(fl)
	fl.Lookup("backfill").Usage = "clean up this backfill `ID` (default: every backfill with open findings); repeat or comma-separate"
	fl.Lookup("owner").Usage = "plan only the findings of this `OWNER` (the owner as written, or its part before @); repeat or comma-separate"
	fl.Lookup("severity").Usage = "plan only the findings at or above this `SEVERITY` (critical, high, medium, low, info)"
	fl.StringArrayVar(&f.from, "from", nil, "plan from the estate in `FILE` (written by bfaudit collect --out); repeat it, name a directory "+
		"(every *.json in it) or a quoted glob, to merge estates such as the shards of collect --shard; --apply still reads each artifact again")
	fl.StringVarP(&f.format, "format", "f", "", "`FORMAT` of the plan: sh (a script; text and table name it too) or json; "+
		"default json when --output ends in .json, else sh")
	fl.StringVarP(&f.output, "output", "o", "", "write the plan to `FILE` instead of stdout (its folder is made if missing)")
	fl.BoolVar(&f.apply, "apply", false, "act: take the actions that may run now and are reversible or allowed in fix.allow, recording each in history")
	fl.BoolVar(&f.due, "due", false, "act only on findings past their due date whose owner was told at least due.notice_days before (needs history:); list the rest with why")
	fl.BoolVar(&f.dryRun, "dry-run", false, "list what --apply would do with each item, and why not, touching nothing")
	fl.DurationVar(&f.deadline, "deadline", 0, "stop after this `DURATION` (default: deadline in the config, 30m)")
	return cmd
}

func runFix(cmd *cobra.Command, g *globals, f fixFlags) error {
	f.format = fixFormat(f.format, f.output)
	if f.format != "sh" && f.format != "json" {
		return usageError(fmt.Errorf("--format: %q is not sh (or text, table) or json", f.format))
	}
	filt, err := f.filter.parse()
	if err != nil {
		return usageError(err)
	}
	if f.apply && f.dryRun {
		return usageError(errors.New("--apply and --dry-run: give one"))
	}
	now, err := g.clock()
	if err != nil {
		return err
	}
	cfg, err := g.loadConfig(len(f.from) > 0 && !f.apply)
	if err != nil {
		return err
	}
	if f.due && cfg.History == nil {
		return usageError(errors.New("--due acts on due dates and notices the history store keeps: add a history: section to the config"))
	}
	deadline := cfg.Deadline
	if cmd.Flags().Changed("deadline") {
		if f.deadline <= 0 {
			return usageError(fmt.Errorf("--deadline: must be positive, got %s", f.deadline))
		}
		deadline = f.deadline
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), deadline)
	defer cancel()

	run := audit.Plan{Instances: cfg.Instances, Concurrency: cfg.Concurrency, Selector: cfg.Selector,
		Engine: cfg.Engine, Now: now, Due: cfg.DuePolicy, Teams: cfg.Teams, Deadline: deadline}
	var prog *progress
	collect := ctx
	if len(f.from) > 0 {
		if run.Estate, err = loadEstates(g, f.from); err != nil {
			return usageError(err)
		}
	} else {
		prog = g.startProgress(len(cfg.Instances))
		collect = collectors.WithObserver(ctx, prog)
	}
	a, errs := audit.Run(collect, ctx, run)
	prog.close()
	if len(errs) > 0 {
		return &exitError{code: exitIncomplete, err: errors.Join(errs...)}
	}
	// What a source that did not answer held is left out of the plan
	// (its findings are unread); say so once.
	for _, err := range coverageErrors(a.Report.Coverage, prog) {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintln(g.stderr, "bfaudit: warning:", line)
		}
	}
	in := fix.InputsOf(a)
	in.RecordsDir, in.PlansDir = fix.Dirs(cfg.Instances)

	var store *history.Store
	if cfg.History != nil {
		if store, err = history.Open(ctx, *cfg.History, history.WithDue(cfg.DuePolicy)); err != nil {
			return &exitError{code: exitIncomplete, err: fmt.Errorf("history: %w", err)}
		}
		defer store.Close()
		// Acceptances recorded by the GitHub sink are waivers too.
		if in.Accepted, err = store.Accepted(ctx, now); err != nil {
			return &exitError{code: exitIncomplete, err: fmt.Errorf("history: %w", err)}
		}
	}
	if f.due {
		if in.Due, err = dueGate(ctx, store, in.Report, filt.keepsFinding, cfg.DuePolicy.NoticeDays); err != nil {
			return &exitError{code: exitIncomplete, err: fmt.Errorf("history: %w", err)}
		}
	}
	in.Report = filt.findings(in.Report)
	runs := func(remedy.Action) bool { return true }
	if f.apply || f.dryRun {
		runs = func(a remedy.Action) bool { return cfg.Fix.Allows(a.Name) }
	}
	plan, err := newFixPlan(in, splitList(f.filter.backfills), runs)
	if err != nil {
		return usageError(err)
	}
	if f.apply || f.dryRun {
		return applyFix(ctx, g, cfg, store, plan, f)
	}
	return writeFixPlan(g, plan, f)
}

// fixFormat is fix's --format as given (text and table name the script),
// else the one --output's extension names.
func fixFormat(format, output string) string {
	switch {
	case format == "text" || format == "table":
		return "sh"
	case format != "":
		return format
	case strings.HasSuffix(strings.ToLower(output), ".json"):
		return "json"
	}
	return "sh"
}

// newFixPlan is the plan of the backfills named (every one with open
// findings when none is), in the order named.
func newFixPlan(in fix.Inputs, ids []string, runs fix.Runs) (*fix.Plan, error) {
	if len(ids) == 0 {
		return fix.NewPlan(in, "", runs)
	}
	var plan *fix.Plan
	for _, id := range ids {
		p, err := fix.NewPlan(in, id, runs)
		if err != nil {
			return nil, err
		}
		if plan == nil {
			plan = p
		} else {
			plan.Backfills = append(plan.Backfills, p.Backfills...)
		}
	}
	return plan, nil
}

// createOutput opens fix's --output, making its folder first.
func createOutput(path string) (*os.File, error) {
	if err := makeDir(path); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
}

func writeFixPlan(g *globals, plan *fix.Plan, f fixFlags) error {
	var w io.Writer = g.stdout
	if f.output != "" {
		file, err := createOutput(f.output)
		if err != nil {
			return usageError(fmt.Errorf("--output: %w", err))
		}
		defer file.Close()
		w = file
	}
	write := fix.WriteScript
	if f.format == "json" {
		write = fix.WriteJSON
	}
	if err := write(w, plan); err != nil {
		return fmt.Errorf("write the plan: %w", err)
	}
	return nil
}

// applyFix takes the plan's safe part and prints what happened to each
// item. Every action is recorded in the history store, so --apply needs
// one.
// With --dry-run it only says what it would do.
func applyFix(ctx context.Context, g *globals, cfg *config.Config, store *history.Store, plan *fix.Plan, f fixFlags) error {
	if store == nil && !f.dryRun {
		return usageError(errors.New("--apply records every action in the history store: add a history: section to the config"))
	}
	var systems map[string]remedy.Actor
	if !f.dryRun {
		var closeSystems func() error
		var err error
		if systems, closeSystems, err = fix.Systems(cfg.Instances); err != nil {
			return usageError(err)
		}
		defer func() { _ = closeSystems() }()
	}
	actor := cfg.Fix.Actor
	if actor == "" {
		actor = cmp.Or(os.Getenv("USER"), "unknown")
	}
	ap := &fix.Applier{Systems: systems, Allowed: cfg.Fix.Allows, Store: store, Actor: actor, DryRun: f.dryRun}
	results := ap.Apply(ctx, plan)
	var err error
	var w io.Writer = g.stdout
	if f.output != "" {
		file, err := createOutput(f.output)
		if err != nil {
			return usageError(fmt.Errorf("--output: %w", err))
		}
		defer file.Close()
		w = file
	}
	if f.format == "json" {
		err = fix.WriteResultsJSON(w, results)
	} else {
		err = fix.WriteResults(w, results)
	}
	if err != nil {
		return fmt.Errorf("write the results: %w", err)
	}
	if fix.Failed(results) {
		return &exitError{code: exitIncomplete, err: errors.New("some actions failed: see above, and audit again")}
	}
	return nil
}
