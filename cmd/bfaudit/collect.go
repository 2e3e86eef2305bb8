package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/audit"
)

func newCollectCmd(g *globals) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "collect",
		Short: "Collect the inventory and save it as JSON, to audit later with `audit --from`",
		Long: `Collect from every configured source and save the estate: collect where the
credentials are, audit anywhere. Exits 3 when a source failed (the estate is
still written, with that source's coverage marked), and when the run's
deadline or a signal stopped it (the estate holds what was collected).`,
		Example: `  bfaudit collect --config bfaudit.yaml --out estate.json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError(errors.New("--out: required (path of the estate JSON to write)"))
			}
			now, err := g.clock()
			if err != nil {
				return err
			}
			cfg, err := g.loadConfig(false)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), cfg.Deadline)
			defer cancel()
			progress(g, "collecting from %d sources...", len(cfg.Instances))
			est, stopErr := audit.Collect(ctx, cfg.Instances, cfg.Selector, cfg.Concurrency, now)
			progress(g, "")
			for i := range est.Coverage {
				audit.RedactCoverage(&est.Coverage[i])
			}
			// A stopped collection still saves what it has: the sources that
			// had not finished are marked failed in the estate.
			if err := audit.SaveEstate(out, est); err != nil {
				return usageError(err)
			}
			logCoverage(g, est)
			fmt.Fprintf(g.stdout, "saved %d backfills, %d artifacts, %d records from %d sources to %s\n",
				len(est.Backfills), len(est.Artifacts), len(est.Records), len(est.Coverage), out)
			if stopErr != nil {
				return &exitError{code: exitIncomplete, err: errors.New(stopReason(cmd.Context(), cfg.Deadline))}
			}
			if !est.Complete() {
				return &exitError{code: exitIncomplete}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the estate (JSON) to `FILE`")
	return cmd
}
