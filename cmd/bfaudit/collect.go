package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
)

func newCollectCmd(g *globals) *cobra.Command {
	var out, shard string
	cmd := &cobra.Command{
		Use:   "collect",
		Short: "Collect the inventory and save it as JSON, to audit later with `audit --from`",
		Long: `Collect from every configured source and save the estate: collect where the
credentials are, audit anywhere. Exits 3 when a source failed (the estate is
still written, with that source's coverage marked), and when the run's
deadline or a signal stopped it (the estate holds what was collected).

--shard I/N collects only the I-th of N slices (I is 0-based, from 0 to
N-1, as Kubernetes' JOB_COMPLETION_INDEX): sources that can divide their
units (projects of bigquery, pubsub and gcpiam; listed namespaces of
kubernetes; listed vhosts of rabbitmq; airflow's DAGs) keep the units
whose name hashes to I; every other source is collected whole by the one
shard its name hashes to; plan sources (records) are read by every shard. Audit the N estates together
with audit --from: a shard missing from the set leaves its sources not
answered, never resolved.`,
		Example: `  bfaudit collect --config bfaudit.yaml --out estate.json
  bfaudit collect --config bfaudit.yaml --shard 0/4 --out estates/shard-0.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError(errors.New("--out: required (path of the estate JSON to write)"))
			}
			var spec *collectors.ShardSpec
			if shard != "" {
				s, err := collectors.ParseShard(shard)
				if err != nil {
					return usageError(fmt.Errorf("--shard: %w", err))
				}
				spec = &s
			}
			now, err := g.clock()
			if err != nil {
				return err
			}
			cfg, err := g.loadConfig(false)
			if err != nil {
				return err
			}
			if err := makeDir(out); err != nil {
				return usageError(fmt.Errorf("--out: %w", err))
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), cfg.Deadline)
			defer cancel()
			prog := g.startProgress(len(cfg.Instances))
			ctx = collectors.WithObserver(ctx, prog)
			var est *model.Estate
			var stopErr error
			if spec != nil {
				est, stopErr = audit.CollectShard(ctx, cfg.Instances, cfg.Selector, cfg.Concurrency, now, *spec)
			} else {
				est, stopErr = audit.Collect(ctx, cfg.Instances, cfg.Selector, cfg.Concurrency, now)
			}
			prog.close()
			for i := range est.Coverage {
				audit.RedactCoverage(&est.Coverage[i])
			}
			// A stopped collection still saves what it has: the sources that
			// had not finished are marked failed in the estate.
			if err := audit.SaveEstate(out, est); err != nil {
				return usageError(err)
			}
			fmt.Fprintf(g.stdout, "saved %d backfills, %d artifacts, %d records from %d sources to %s\n",
				countBackfills(est, cfg.Selector), len(est.Artifacts), len(est.Records), len(est.Coverage), out)
			for _, c := range ownSources(est).Coverage {
				read := reports.ReadCell(c)
				if read == "" {
					read = "nothing"
				}
				fmt.Fprintf(g.stdout, "  %s (%s): %s; read %s%s\n", c.Source, c.System, c.State(), read, notes(c))
			}
			if stopErr != nil {
				return &exitError{code: exitIncomplete, err: audit.Stopped(ctx, cfg.Deadline)}
			}
			if !shardComplete(est) {
				return &exitError{code: exitIncomplete, err: errors.Join(coverageErrors(ownSources(est).Coverage, prog)...)}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the estate (JSON) to `FILE` (its folder is made if missing)")
	cmd.Flags().StringVar(&shard, "shard", "", "collect only shard `SHARD` of every source's units, written I/N with I 0-based (0/4 to 3/4); merge the shards with audit --from")
	return cmd
}

// countBackfills counts the backfills as the audit does: one per id,
// however many plans, scheduler objects, records and artifacts name it
// (a plan and the scheduler's run of it are one backfill; an id found only
// on a table is one too).
func countBackfills(est *model.Estate, sel *correlate.Selector) int {
	if sel == nil {
		sel = correlate.MustSelector()
	}
	ids := map[model.BackfillID]bool{}
	for _, b := range est.Backfills {
		ids[model.ParseID(b.ID)] = true
	}
	for _, r := range est.Records {
		ids[model.ParseID(r.BackfillID)] = true
	}
	for _, a := range est.Artifacts {
		id := a.BackfillID
		if id == "" {
			id, _, _ = sel.MatchTags(a.URI, a.Name, a.Labels)
		}
		if id != "" {
			ids[model.ParseID(id)] = true
		}
	}
	return len(ids)
}

// notes are a source's notes, for the end of its line.
func notes(c model.Coverage) string {
	s := ""
	for _, n := range c.Notes {
		s += "; note: " + n
	}
	return s
}

// shardComplete is est.Complete, not counting the sources another shard
// collects (recorded failed here so that this estate alone resolves
// nothing about them).
func shardComplete(est *model.Estate) bool {
	for _, c := range est.Coverage {
		if !c.Full() && (c.Shard == nil || c.Shard.Mode != model.ShardElsewhere) {
			return false
		}
	}
	return true
}

// ownSources is est without the sources another shard collects, so the
// log does not report them failed.
func ownSources(est *model.Estate) *model.Estate {
	own := *est
	own.Coverage = nil
	for _, c := range est.Coverage {
		if c.Shard == nil || c.Shard.Mode != model.ShardElsewhere {
			own.Coverage = append(own.Coverage, c)
		}
	}
	return &own
}
