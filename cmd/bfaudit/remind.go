package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/internal/httplog"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/github"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/reports/remind"
	"github.com/bfaudit/bfaudit/reports/slack"
)

// runReminders sends the due-date reminders, marks and escalations after
// the other sinks (docs/reports/due.md). They need the history store (it
// keeps each one sent once); without it, or in a dry run, they are
// skipped and the log says so. gh is the GitHub sink that synced this run
// and ghRes what it did (nil without GitHub).
func runReminders(ctx context.Context, g *globals, cfg *config.Config, store *history.Store, r *model.Report, gh *github.Sink, ghRes *github.Result, dryRun bool) error {
	if cfg.GitHub == nil && cfg.Slack == nil {
		return nil
	}
	switch {
	case store == nil:
		g.log.Info("reminders: skipped: they need the history store (history: in the config), which keeps each sent once")
		return nil
	case dryRun:
		g.log.Info("reminders: not planned in a dry run")
		return nil
	}
	in := remind.Input{Report: r, Policy: cfg.DuePolicy, Owners: cfg.Owners, Teams: cfg.Teams, Store: store}
	if gh != nil && ghRes != nil {
		in.GitHub, in.Issues, in.NotSynced = gh, ghRes.IssueURLs, ghRes.NotSynced
	}
	if cfg.Slack != nil {
		s, err := reminderSlack(g, *cfg.Slack, cfg.Owners, store)
		if err != nil {
			return err
		}
		if s != nil {
			in.Slack = s
		}
	}
	res, err := remind.Run(ctx, in)
	g.log.Info("reminders", slog.Int("listed", res.Listed), slog.Int("reminded", res.Reminded),
		slog.Int("overdue", res.Overdue), slog.Int("escalated", res.Escalated))
	return err
}

// reminderSlack is the Slack sink reminders send through; nil without a
// bot token: a webhook posts to its one channel, with no direct message
// and no reading back what landed (SendOnce needs both).
func reminderSlack(g *globals, sc slack.Config, owners model.Owners, store *history.Store) (*slack.Sink, error) {
	sc = sc.WithDefaults()
	if os.Getenv(sc.TokenEnv) == "" {
		g.log.Info("reminders: not on Slack: they need a bot token ($" + sc.TokenEnv + ")")
		return nil, nil
	}
	return slack.New(sc, owners, store, slack.WithHTTPClient(&http.Client{Transport: httplog.Wrap(nil)})) // --verbose logs each call
}
