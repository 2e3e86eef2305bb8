package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/internal/httplog"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/metrics"
)

// writeMetrics pushes the run's metrics to the Pushgateway (when the
// config has one) and writes them to --metrics FILE (when given), after
// every other sink, so they say whether the run was complete. A failed
// push or write is a problem of the run (exit 3), added to the report
// before the report files are written; a failed push makes the file say
// the run was incomplete. The push gets the finish budget, not the run's
// deadline: after a stopped run it still tells the alerting so.
// --dry-run plans the push instead of making it; the file is written.
func writeMetrics(finish context.Context, g *globals, cfg *config.Config, r *model.Report, sw remote.Stopwatch, f auditFlags, dryOut io.Writer, fail func(error)) {
	if cfg.Metrics != nil && cfg.Metrics.Pushgateway != nil {
		run := metrics.Run{Duration: sw.Elapsed(), Complete: r.Summary.Complete, Team: teamOf(cfg)}
		p, err := metrics.NewPusher(*cfg.Metrics.Pushgateway, &http.Client{Transport: httplog.Wrap(nil)}, remote.RetryPolicy{}) // --verbose logs the call
		switch {
		case err != nil:
			fail(err)
		case f.dryRun.on():
			if err := p.Plan(dryOut, r, run); err != nil {
				fail(err)
			}
		default:
			if err := p.Push(finish, r, run); err != nil {
				fail(err)
			} else {
				g.log.Info("metrics pushed", slog.Bool("complete", run.Complete))
			}
		}
	}
	if f.metrics != "" {
		run := metrics.Run{Duration: sw.Elapsed(), Complete: r.Summary.Complete, Team: teamOf(cfg)}
		if err := metrics.WriteFile(f.metrics, r, run); err != nil {
			fail(err)
		}
	}
}

// teamOf is the metrics' team label from the teams config; nil without
// teams (the label is then empty).
func teamOf(cfg *config.Config) func(string) string {
	if len(cfg.Teams) == 0 {
		return nil
	}
	return cfg.Teams.Namer()
}
