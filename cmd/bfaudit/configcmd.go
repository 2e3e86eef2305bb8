package main

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/reports/metrics"
	"github.com/bfaudit/bfaudit/reports/slack"
)

//go:embed sample.yaml
var sampleConfig string

func newConfigCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Validate or print a sample config"}
	cmd.AddCommand(&cobra.Command{
		Use:   "validate",
		Short: "Check the config file: every section, source, rule setting, template and named file or folder",
		Long: `Check the config file as the audit would read it, and every local file and
folder it names (plan folders, exports, globs, template files; for report
outputs and the history store, that their folder can be made). Every
problem is printed, one a line as file:line: key: what is wrong, then
their count; exit 2 when there is any.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if g.configPath == "" {
				return usageError(errors.New("no config: pass --config FILE (see `bfaudit config sample`)"))
			}
			cfg, err := config.Validate(g.v, g.configPath)
			if err != nil {
				return usageError(fmt.Errorf("%w\n%s in %s", err, problems(config.Count(err)), g.configPath))
			}
			fmt.Fprintf(g.stdout, "%s: ok (%d sources, %d rules enabled)\n", cfg.File, len(cfg.Instances), len(cfg.Engine.Rules()))
			return nil
		},
	}, &cobra.Command{
		Use:   "sample",
		Short: "Print a commented sample config with every collector's section",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprint(g.stdout, sampleConfig)
			for _, sec := range []string{githubSample, history.SampleConfig(), slack.SampleConfig(), metrics.SampleConfig()} {
				fmt.Fprintln(g.stdout)
				fmt.Fprint(g.stdout, strings.TrimRight(sec, "\n")+"\n")
			}
			fmt.Fprintln(g.stdout, "\nsources:")
			for _, name := range collectors.Names() {
				if s := collectors.Sample(name); s != "" {
					fmt.Fprintln(g.stdout, indent(strings.TrimRight(s, "\n"), "  "))
					fmt.Fprintln(g.stdout)
				}
			}
			return nil
		},
	})
	return cmd
}

const githubSample = `# One GitHub issue per backfill with open findings (docs/reports/github.md).
github:
  repo: acme/data-platform       # owner/name
  label: bfaudit                 # marks the issues bfaudit keeps
  waiver_label: bfaudit:accepted # an issue closed with it waives its findings
  token_env: GITHUB_TOKEN        # needs issues: write on the repository
  # base_url: https://ghe.example.com   # GitHub Enterprise Server
  rate_limit_wait: 5m            # longest total wait for rate limits, then exit 3
`

// problems is "1 problem" or "3 problems".
func problems(n int) string {
	if n == 1 {
		return "1 problem"
	}
	return fmt.Sprintf("%d problems", n)
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}
