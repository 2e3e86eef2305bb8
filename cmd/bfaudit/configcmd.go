package main

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/collectors"
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
		Short: "Check the config file: every section, source, rule setting and template",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := g.loadConfig(false)
			if err != nil {
				return err
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
				f, _ := collectors.Lookup(name)
				if s, ok := f().(collectors.SampleConfigurer); ok {
					fmt.Fprintln(g.stdout, indent(strings.TrimRight(s.SampleConfig(), "\n"), "  "))
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

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}
