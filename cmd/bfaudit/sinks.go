package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/internal/httplog"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/github"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/reports/slack"
)

// runSinks delivers the report to the configured sinks, in the order each
// needs: GitHub first (its issue links and waivers feed the files and the
// digest). A failed sink is logged and returned; the others still run and
// the report files are still written. Every error is returned, each naming
// its sink.
//
// The history store records the run after GitHub (so waivers accepted on
// GitHub are remembered) and before Slack and the files (which show what is
// new, resolved and the trend). GitHub and Slack talk to the world under
// the run's deadline (ctx): once it has passed they stop between calls.
// The store records under finish, so a stopped run is still recorded.
//
// dryOut gets the sinks' dry-run plan, JSON Lines only: every HTTP call
// they would make, one a line (a file, stdout or stderr; see dryRunOut).
func runSinks(ctx, finish context.Context, g *globals, cfg *config.Config, a *audit.Audit, store *history.Store, f auditFlags, dryOut io.Writer) []error {
	var errs []error
	r := a.Report
	var ghSink *github.Sink
	var ghRes *github.Result
	if cfg.GitHub != nil {
		if ctx.Err() != nil {
			errs = append(errs, errors.New("github: not synced: the run was stopped before the sinks ran"))
		} else {
			var err error
			if ghSink, ghRes, err = syncGitHub(ctx, g, *cfg.GitHub, cfg.Owners, a, f.dryRun.on(), dryOut); err != nil {
				errs = append(errs, err)
			}
		}
	}
	recorded := false
	if store != nil {
		// A dry run previews what the store would add (ages, new and
		// resolved) without recording the run.
		record := store.Record
		if f.dryRun.on() {
			record = store.Preview
		}
		if err := record(finish, r); err != nil {
			errs = append(errs, fmt.Errorf("history: %w", err))
		} else {
			recorded = true
		}
	}
	if cfg.Slack != nil {
		var s *history.Store
		if recorded {
			s = store
		}
		if ctx.Err() != nil {
			errs = append(errs, errors.New("slack: not posted: the run was stopped before the sinks ran"))
		} else if err := postSlack(ctx, g, *cfg.Slack, cfg.Owners, cfg.Teams, s, r, f, dryOut); err != nil {
			errs = append(errs, err)
		}
	}
	if ctx.Err() == nil {
		if err := runReminders(ctx, g, cfg, store, r, ghSink, ghRes, f.dryRun.on()); err != nil {
			errs = append(errs, err)
		}
	}
	// Only a run whose sinks all got through is a base later digests
	// compare with: one killed or failing on the way is finished by a
	// rerun, which must say what it would have said (issue 41).
	if recorded && !f.dryRun.on() && ctx.Err() == nil && len(errs) == 0 {
		if err := store.MarkDelivered(finish, r.Now); err != nil {
			errs = append(errs, fmt.Errorf("history: %w", err))
		}
	}
	return errs
}

func postSlack(ctx context.Context, g *globals, sc slack.Config, owners model.Owners, teams model.Teams, store *history.Store, r *model.Report, f auditFlags, dryOut io.Writer) error {
	sc.DryRun = sc.DryRun || f.dryRun.on()
	sc.Force = sc.Force || f.force
	if store == nil && sc.Period != slack.PeriodEvery && !sc.DryRun {
		return errors.New("slack: the history store is unavailable, so the digest cannot be posted once per period; not posting")
	}
	sink, err := slack.New(sc, owners, store, slack.WithDryRunWriter(dryOut), slack.WithTeams(teams),
		slack.WithHTTPClient(&http.Client{Transport: httplog.Wrap(nil)})) // --verbose logs each call
	if err != nil {
		return err // the sink's errors already say "slack"
	}
	res, err := sink.Post(ctx, r)
	g.log.Info("slack digest", slog.String("period", res.Period), slog.Bool("posted", res.Posted),
		slog.String("skipped", res.Skipped), slog.Int("messages", res.Messages),
		slog.Int("direct_messages", res.DirectMessages), slog.Bool("dry_run", res.DryRun))
	for _, rec := range res.Recovered {
		g.log.Warn("slack: finished what an interrupted run left", slog.String("recovered", rec))
	}
	return err
}

func syncGitHub(ctx context.Context, g *globals, gc github.Config, owners model.Owners, a *audit.Audit, dryRun bool, dryOut io.Writer) (*github.Sink, *github.Result, error) {
	r := a.Report
	gc.DryRun = gc.DryRun || dryRun
	sink, err := github.New(gc, owners, github.WithOutput(dryOut),
		github.WithHTTPClient(&http.Client{Transport: httplog.Wrap(nil)})) // --verbose logs each call
	if err != nil {
		return nil, nil, err
	}
	res, err := sink.Sync(ctx, r)
	res.Apply(r)
	a.Refresh()
	g.log.Info("github issues", slog.Int("created", res.Created), slog.Int("edited", res.Edited),
		slog.Int("closed", res.Closed), slog.Int("reopened", res.Reopened), slog.Int("unchanged", res.Unchanged),
		slog.Int("reads", res.Reads), slog.Int("writes", res.Writes), slog.Bool("dry_run", gc.DryRun))
	for _, w := range res.Warnings {
		g.log.Warn("github", slog.String("warning", w))
	}
	return sink, &res, err // the sink's errors already say "github"
}
