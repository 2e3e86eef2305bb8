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
)

// runPlanLive is `plan check --live`: the configured sources are read
// once, as an audit reads them, with the plans given added, and each plan
// is previewed against what they said. A source that did not answer fully
// makes the preview incomplete (exit 3): a shorter list of tables to
// rebuild would read as less work.
func runPlanLive(cmd *cobra.Command, g *globals, format string, files []string, now time.Time, deadline time.Duration) error {
	if g.configPath == "" {
		return usageError(errors.New("--live reads the configured sources: give the config with -c"))
	}
	if format == "md" {
		format = "markdown"
	}
	if !slices.Contains(preview.Formats, format) {
		return usageError(fmt.Errorf("--format: %q is not text (or table), json or markdown with --live", format))
	}
	cfg, err := g.loadConfig(false)
	if err != nil {
		return err
	}
	var plans []model.Backfill
	var parseErrs []error
	for _, f := range files {
		ps, errs := records.ReadPlanFile(f)
		plans = append(plans, ps...)
		parseErrs = append(parseErrs, errs...)
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
	est.Backfills = append(est.Backfills, plans...)
	r := preview.Build(correlate.Correlate(est, cfg.Selector), plans, cfg.Teams, now)
	if stopped {
		r.Incomplete = append(r.Incomplete, audit.Stopped(ctx, deadline).Error())
	}
	if err := preview.Write(g.stdout, format, r, terminalWidth(g.stdout)); err != nil {
		return err
	}
	if len(r.Incomplete) > 0 {
		return &exitError{code: exitIncomplete, err: fmt.Errorf("the preview is incomplete: %s", strings.Join(r.Incomplete, "; "))}
	}
	return nil
}
