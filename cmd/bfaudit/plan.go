package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors/records"
	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
	"github.com/bfaudit/bfaudit/rules"
)

func newPlanCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "plan", Short: "Check backfill plans before they run"}
	var failOnFlag string
	var format string
	var live bool
	var deadline time.Duration
	check := &cobra.Command{
		Use:   "check FILE|DIR|GLOB...",
		Short: "Run the governance rules (BF101-BF116) on plan files",
		Long: `Check plan files before any backfill runs: each finding is printed with its
file and line. A directory stands for every *.yaml and *.yml in it, a
quoted glob for its matches, each sorted. Exits 1 when a finding is at or
above --fail-on (default report.fail_on in the config, high; never: exit 0
whatever the findings), 2 when a file cannot be read or parsed.

With --live (and -c) the configured sources are read once, read-only and
under the config's deadline, and each plan is previewed: the tables it
rewrites, the tables to rebuild afterwards in order with their owners and
teams, the owners missing from notified, how the scheduler will run its
job_id (against the plan) and what already runs on it, what the warehouse
says it will cost (partitions in the range, dry runs of validation_query
and replay_query, beside cost_estimate), the open backfills on the same
tables or job over an overlapping interval, and the rules' findings judged
against all that (--format sarif writes those alone). Exits 3, naming
them, when a source did not answer fully.`,
		Example: `  bfaudit plan check plans/
  bfaudit plan check 'plans/*.yaml'
  bfaudit plan check --fail-on medium --format sarif plans/bf-1234.yaml > plan.sarif
  bfaudit plan check --live -c bfaudit.yaml plans/bf-5000.yaml
  bfaudit plan check --live -c bfaudit.yaml --format markdown plans/bf-5000.yaml > preview.md`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			now, err := g.clock()
			if err != nil {
				return err
			}
			format = reports.Canonical(format)
			if live {
				files, err := expandPaths(args, ".yaml", ".yml")
				if err != nil {
					return usageError(err)
				}
				if cmd.Flags().Changed("deadline") && deadline <= 0 {
					return usageError(fmt.Errorf("--deadline: must be positive, got %s", deadline))
				}
				return runPlanLive(cmd, g, format, files, now, deadline, failOnFlag)
			}
			if cmd.Flags().Changed("deadline") {
				return usageError(errors.New("--deadline bounds reading the sources: it goes with --live"))
			}
			if format != "table" && format != "json" && format != "sarif" {
				return usageError(fmt.Errorf("--format: %q is not text (or table), json or sarif", format))
			}
			files, err := expandPaths(args, ".yaml", ".yml")
			if err != nil {
				return usageError(err)
			}
			opts := rules.Options{Only: func(r *rules.Rule) bool { return r.Governance }}
			var cfg *config.Config
			if g.configPath != "" {
				if cfg, err = g.loadConfig(false); err != nil {
					return err
				}
				opts = cfg.RuleOptions
				opts.Only = func(r *rules.Rule) bool { return r.Governance }
			}
			failOn, err := resolveFailOn(failOnFlag, cfg)
			if err != nil {
				return err
			}
			est := &model.Estate{Version: model.EstateVersion}
			var parseErrs []error
			lines := map[string]records.KeyLines{}
			for _, f := range files {
				plans, errs := records.ReadPlanFile(f)
				est.Backfills = append(est.Backfills, plans...)
				parseErrs = append(parseErrs, errs...)
				if kl, err := records.ReadKeyLines(f); err == nil {
					lines[f] = kl
				}
			}
			// Findings point at the offending key, not only at the plan.
			opts.KeyLines = func(loc model.Location, key string) int { return lines[loc.Path].Line(loc.Line, key) }
			eng, err := rules.New(opts)
			if err != nil {
				return usageError(err)
			}
			for _, e := range parseErrs {
				fmt.Fprintln(g.stderr, "error:", e)
			}
			findings := planFindings(g, eng, est, now)
			// A plan that could not be read was not checked: "no findings"
			// (or an empty report) would read as a clean bill.
			if len(findings) > 0 || len(parseErrs) == 0 {
				if err := printPlanFindings(cmd, g, format, findings, est.Backfills, parseErrs, now); err != nil {
					return usageError(err)
				}
			}
			switch {
			case len(parseErrs) > 0:
				return &exitError{code: exitUsage, err: fmt.Errorf("%s in plan files: not every plan was checked", plural(len(parseErrs), "problem"))}
			case failOn.failing(findings):
				return &exitError{code: exitFindings}
			}
			return nil
		},
	}
	check.Flags().StringVar(&failOnFlag, "fail-on", "", failOnUsage)
	check.Flags().StringVarP(&format, "format", "f", "text", "output `FORMAT`: text (or table: one line per finding), json or sarif; with --live text, json, markdown or sarif")
	check.Flags().BoolVar(&live, "live", false, "preview each plan against the configured sources (needs -c): what it rewrites, what to rebuild and tell, how the scheduler runs it, what it costs, collisions")
	check.Flags().DurationVar(&deadline, "deadline", 0, "with --live: stop reading the sources after this `DURATION` and show what was read, marked incomplete (default: deadline in the config, 30m)")
	cmd.AddCommand(check)
	return cmd
}

// planFindings evaluates the plans. Two files planning the same backfill
// id would be merged by correlation, hiding one of them, so each copy is
// checked in its own round (and the clash is reported).
func planFindings(g *globals, eng *rules.Engine, est *model.Estate, now time.Time) []model.Finding {
	var rounds [][]model.Backfill
	seen := map[model.BackfillID][]string{}
	for _, b := range est.Backfills {
		id := model.ParseID(b.ID)
		n := len(seen[id])
		seen[id] = append(seen[id], b.Source.String())
		if n == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[n] = append(rounds[n], b)
	}
	for id, where := range seen {
		if len(where) > 1 {
			fmt.Fprintf(g.stderr, "warning: %s is planned more than once: %s\n", id, strings.Join(where, ", "))
		}
	}
	var out []model.Finding
	for _, plans := range rounds {
		ix := correlate.Correlate(&model.Estate{Version: est.Version, Backfills: plans}, correlate.MustSelector())
		out = append(out, eng.Evaluate(ix, now)...)
	}
	// Authors read plan check file by file, top to bottom.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Location, out[j].Location
		if a == nil || b == nil {
			return b == nil && a != nil
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	return out
}

// printPlanFindings writes the findings of the plans checked: text (one
// line per finding) or a report with a row per plan and a summary that
// counts them.
func printPlanFindings(cmd *cobra.Command, g *globals, format string, findings []model.Finding, plans []model.Backfill, parseErrs []error, now time.Time) error {
	switch format {
	case "table":
		for _, f := range findings {
			waived := ""
			if f.Waived() {
				waived = fmt.Sprintf(" (waived until %s: %s)", f.Waiver.Expires.UTC().Format("2006-01-02"), f.Waiver.Reason)
			}
			fmt.Fprintf(g.stdout, "%s: %s %s %s: %s%s\n", reports.Where(f), f.Severity, f.RuleID, f.RuleName, f.Message, waived)
		}
		if len(findings) == 0 {
			fmt.Fprintln(g.stdout, "no findings")
		}
		return nil
	case "json", "sarif":
		w, _ := reports.New(format, reports.Options{})
		r := &model.Report{Version: model.ReportVersion, Tool: "bfaudit plan check", Now: now, Findings: findings,
			Backfills: []model.BackfillReport{}, Coverage: []model.Coverage{}}
		if r.Findings == nil {
			r.Findings = []model.Finding{}
		}
		open := map[model.BackfillID]int{}
		for _, f := range findings {
			if !f.Waived() {
				open[model.ParseID(f.BackfillID)]++
			}
		}
		for _, b := range plans {
			r.Backfills = append(r.Backfills, model.BackfillReport{Backfill: &b, Known: true, Findings: open[model.ParseID(b.ID)]})
		}
		for _, e := range parseErrs {
			r.Problems = append(r.Problems, e.Error())
		}
		audit.Summarize(r, nil)
		return w.Write(cmd.Context(), g.stdout, r)
	}
	return fmt.Errorf("--format: %q is not text, json or sarif", format)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
