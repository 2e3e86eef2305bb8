package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/github"
)

// runSinks delivers the report to the configured sinks, in the order each
// needs: GitHub first (its issue links and waivers feed the files and the
// digest). A failed sink is logged and returned; the others still run and
// the report files are still written.
func runSinks(cmd *cobra.Command, g *globals, cfg *config.Config, r *model.Report, dryRun bool) error {
	var errs []error
	if cfg.GitHub != nil {
		if err := syncGitHub(cmd, g, *cfg.GitHub, cfg.Owners, r, dryRun); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func syncGitHub(cmd *cobra.Command, g *globals, gc github.Config, owners model.Owners, r *model.Report, dryRun bool) error {
	gc.DryRun = gc.DryRun || dryRun
	sink, err := github.New(gc, owners, github.WithOutput(g.stderr))
	if err != nil {
		return fmt.Errorf("github: %w", err)
	}
	res, err := sink.Sync(cmd.Context(), r)
	res.Apply(r)
	audit.Refresh(r)
	g.log.Info("github issues", slog.Int("created", res.Created), slog.Int("edited", res.Edited),
		slog.Int("closed", res.Closed), slog.Int("reopened", res.Reopened), slog.Int("unchanged", res.Unchanged),
		slog.Int("reads", res.Reads), slog.Int("writes", res.Writes), slog.Bool("dry_run", gc.DryRun))
	for _, w := range res.Warnings {
		g.log.Warn("github", slog.String("warning", w))
	}
	if err != nil {
		return fmt.Errorf("github: %w", err)
	}
	return nil
}
