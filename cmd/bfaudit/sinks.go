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
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/reports/slack"
)

// runSinks delivers the report to the configured sinks, in the order each
// needs: GitHub first (its issue links and waivers feed the files and the
// digest). A failed sink is logged and returned; the others still run and
// the report files are still written.
//
// The history store records the run after GitHub (so waivers accepted on
// GitHub are remembered) and before Slack and the files (which show what is
// new, resolved and the trend).
func runSinks(cmd *cobra.Command, g *globals, cfg *config.Config, a *audit.Audit, f auditFlags) error {
	var errs []error
	r := a.Report
	if cfg.GitHub != nil {
		if err := syncGitHub(cmd, g, *cfg.GitHub, cfg.Owners, a, f.dryRun); err != nil {
			errs = append(errs, err)
		}
	}
	var store *history.Store
	if cfg.History != nil {
		s, err := history.Open(cmd.Context(), *cfg.History)
		if err != nil {
			errs = append(errs, fmt.Errorf("history: %w", err))
		} else {
			defer s.Close()
			// A dry run previews what the store would add (ages, new and
			// resolved) without recording the run.
			record := s.Record
			if f.dryRun {
				record = s.Preview
			}
			if err := record(cmd.Context(), r); err != nil {
				errs = append(errs, fmt.Errorf("history: %w", err))
			} else {
				store = s
			}
		}
	}
	if cfg.Slack != nil {
		if err := postSlack(cmd, g, *cfg.Slack, cfg.Owners, store, r, f); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func postSlack(cmd *cobra.Command, g *globals, sc slack.Config, owners model.Owners, store *history.Store, r *model.Report, f auditFlags) error {
	sc.DryRun = sc.DryRun || f.dryRun
	sc.Force = sc.Force || f.force
	if store == nil && sc.Period != slack.PeriodEvery && !sc.DryRun {
		return errors.New("slack: the history store is unavailable, so the digest cannot be posted once per period; not posting")
	}
	sink, err := slack.New(sc, owners, store, slack.WithDryRunWriter(g.stderr))
	if err != nil {
		return err // the sink's errors already say "slack"
	}
	res, err := sink.Post(cmd.Context(), r)
	g.log.Info("slack digest", slog.String("period", res.Period), slog.Bool("posted", res.Posted),
		slog.String("skipped", res.Skipped), slog.Int("messages", res.Messages),
		slog.Int("direct_messages", res.DirectMessages), slog.Bool("dry_run", res.DryRun))
	return err
}

func syncGitHub(cmd *cobra.Command, g *globals, gc github.Config, owners model.Owners, a *audit.Audit, dryRun bool) error {
	r := a.Report
	gc.DryRun = gc.DryRun || dryRun
	sink, err := github.New(gc, owners, github.WithOutput(g.stderr))
	if err != nil {
		return err
	}
	res, err := sink.Sync(cmd.Context(), r)
	res.Apply(r)
	a.Refresh()
	g.log.Info("github issues", slog.Int("created", res.Created), slog.Int("edited", res.Edited),
		slog.Int("closed", res.Closed), slog.Int("reopened", res.Reopened), slog.Int("unchanged", res.Unchanged),
		slog.Int("reads", res.Reads), slog.Int("writes", res.Writes), slog.Bool("dry_run", gc.DryRun))
	for _, w := range res.Warnings {
		g.log.Warn("github", slog.String("warning", w))
	}
	return err // the sink's errors already say "github"
}
