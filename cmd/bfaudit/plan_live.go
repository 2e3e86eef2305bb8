package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/audit/preview"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/records"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// runPlanLive is `plan check --live`: the configured sources are read
// once, as an audit reads them, with the plans given added, and each plan
// is previewed against what they said. A source that did not answer fully
// makes the preview incomplete (exit 3): a shorter list of tables to
// rebuild would read as less work.
func runPlanLive(cmd *cobra.Command, g *globals, format string, files []string, now time.Time, deadline time.Duration, failOnFlag string) error {
	if g.configPath == "" {
		return usageError(errors.New("--live reads the configured sources: give the config with -c"))
	}
	if format == "md" {
		format = "markdown"
	}
	if !slices.Contains(preview.Formats, format) && format != "sarif" {
		return usageError(fmt.Errorf("--format: %q is not text (or table), json, markdown or sarif with --live", format))
	}
	cfg, err := g.loadConfig(false)
	if err != nil {
		return err
	}
	failOn, err := resolveFailOn(failOnFlag, cfg)
	if err != nil {
		return err
	}
	var plans []model.Backfill
	var parseErrs []error
	lines := map[string]records.KeyLines{}
	for _, f := range files {
		ps, errs := records.ReadPlanFile(f)
		plans = append(plans, ps...)
		parseErrs = append(parseErrs, errs...)
		if kl, err := records.ReadKeyLines(f); err == nil {
			lines[f] = kl
		}
	}
	if len(parseErrs) > 0 {
		// A plan that cannot be read cannot be previewed; a preview of the
		// others would look like all of them.
		return usageError(errors.Join(parseErrs...))
	}
	// The plans' assets tie the artifacts the sources report to them, as
	// plans read from the configured records source do.
	cfg.Selector.AddAssets(plans)
	if deadline == 0 {
		deadline = cfg.Deadline
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), deadline)
	defer cancel()
	// The same progress lines on stderr as an audit: a source that did not
	// answer says why there.
	prog := g.startProgress(len(cfg.Instances))
	est, err := audit.Collect(collectors.WithObserver(ctx, prog), cfg.Instances, cfg.Selector, cfg.Concurrency, now)
	prog.close()
	stopped := err != nil
	estimators, failed := estimate(ctx, cfg.Instances, plans)
	est.Backfills = append(est.Backfills, plans...)
	ix := correlate.Correlate(est, cfg.Selector)
	r := preview.Build(ix, plans, cfg.Teams, now)
	r.Estimators = estimators
	r.Incomplete = append(r.Incomplete, failed...)
	if stopped || (ctx.Err() != nil && len(failed) > 0) {
		r.Incomplete = append(r.Incomplete, audit.Stopped(ctx, deadline).Error())
	}
	// The governance rules, judged against what the sources said: BF116
	// needs the dry runs, BF114 the lineage; each finding points at the
	// plan's line.
	opts := cfg.RuleOptions
	opts.Only = func(r *rules.Rule) bool { return r.Governance }
	opts.KeyLines = func(loc model.Location, key string) int { return lines[loc.Path].Line(loc.Line, key) }
	eng, err := rules.New(opts)
	if err != nil {
		return usageError(err)
	}
	var findings []model.Finding
	for _, f := range eng.Evaluate(ix, now) {
		for i := range r.Plans {
			if model.ParseID(f.BackfillID) == model.ParseID(r.Plans[i].ID) {
				r.Plans[i].Findings = append(r.Plans[i].Findings, f)
				findings = append(findings, f)
				break
			}
		}
	}
	// The urgent thing first, then down the plan.
	for i := range r.Plans {
		slices.SortStableFunc(r.Plans[i].Findings, func(a, b model.Finding) int {
			if a.Severity != b.Severity {
				return int(b.Severity - a.Severity)
			}
			return lineOf(a) - lineOf(b)
		})
	}
	if format == "sarif" {
		err = printPlanFindings(cmd, g, format, findings, plans, nil, now)
	} else {
		err = preview.Write(g.stdout, format, r, terminalWidth(g.stdout))
	}
	if err != nil {
		return err
	}
	switch {
	case len(r.Incomplete) > 0:
		return &exitError{code: exitIncomplete, err: fmt.Errorf("the preview is incomplete: %s", strings.Join(r.Incomplete, "; "))}
	case failOn.failing(findings):
		return &exitError{code: exitFindings}
	}
	return nil
}

// estimate asks every source that can dry-run a plan (a warehouse) what
// each plan will rewrite and cost, and hands the answers to the plans. A
// source that could not be asked is named in failed: the cost it would
// have given is missing, and the preview incomplete.
func estimate(ctx context.Context, instances []collectors.Instance, plans []model.Backfill) (estimators, failed []string) {
	estimators = []string{}
	for _, in := range instances {
		e, ok := in.Collector.(collectors.Estimator)
		if !ok {
			continue
		}
		estimators = append(estimators, in.Name)
		for i := range plans {
			got, err := e.Estimate(ctx, plans[i])
			if err != nil {
				failed = append(failed, fmt.Sprintf("source %s could not estimate %s: %v", in.Name, plans[i].ID, err))
				// The plan's cost section says so, rather than "nothing".
				plans[i].Estimates = append(plans[i].Estimates, model.Estimate{Source: in.Name, Error: err.Error(),
					Rewrites: []model.TableSpan{}, Queries: []model.QueryCost{}})
				continue
			}
			if got != nil {
				got.Source = in.Name
				plans[i].Estimates = append(plans[i].Estimates, *got)
			}
		}
	}
	return estimators, failed
}

func lineOf(f model.Finding) int {
	if f.Location == nil {
		return 0
	}
	return f.Location.Line
}
