package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/bfaudit/bfaudit/rules"
)

func newRulesCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "rules", Short: "List and explain the rules"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List every rule with its default severity and lifecycle step (with --config, the user rules too)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			all, err := allRules(g)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tSEVERITY\tSTEP\tTITLE")
			for _, r := range all {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Severity, r.Step, r.Title)
			}
			return tw.Flush()
		},
	}, &cobra.Command{
		Use:     "explain ID",
		Short:   "Explain one rule: why it exists, how to fix its findings, its parameters",
		Example: "  bfaudit rules explain BF003\n  bfaudit rules explain lingering-elevated-grant",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			all, err := allRules(g)
			if err != nil {
				return err
			}
			var r *rules.Rule
			for _, c := range all {
				if strings.EqualFold(c.ID, args[0]) || c.Name == args[0] {
					r = c
				}
			}
			if r == nil {
				return usageError(fmt.Errorf("no rule %q; `bfaudit rules list` shows them all", args[0]))
			}
			fmt.Fprint(g.stdout, explain(r))
			return nil
		},
	})
	return cmd
}

func explain(r *rules.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n\n", r.ID, r.Name, r.Title)
	fmt.Fprintf(&b, "Severity:    %s", r.Severity)
	if r.Raised != "" {
		fmt.Fprintf(&b, " (%s)", r.Raised)
	}
	fmt.Fprintf(&b, "\nStep:        %s\n", r.Step)
	if r.Governance {
		b.WriteString("Governance:  yes (run by `bfaudit plan check`)\n")
	}
	source := "config (rules.custom)"
	if !r.User() {
		source = rules.PracticeRef(r.Practice)
	}
	fmt.Fprintf(&b, "Practice:    %s\n\nWhy:\n  %s\n\nFix:\n  %s\n", source, r.Rationale, r.Remediation)
	if r.User() {
		fmt.Fprintf(&b, "\nExpression (once per %s):\n  %s\n", r.AppliesTo, strings.ReplaceAll(strings.TrimSpace(r.Expr), "\n", "\n  "))
	}
	if len(r.Params) > 0 {
		b.WriteString("\nParameters (config: rules.params." + r.ID + ".<name>):\n")
		for _, p := range r.Params {
			fmt.Fprintf(&b, "  %s (default %s): %s\n", p.Name, p.Default, p.Description)
		}
	}
	return b.String()
}

// allRules are the built-in rules and, when a config is given, its user rules.
func allRules(g *globals) ([]*rules.Rule, error) {
	all := rules.All()
	if g.configPath == "" {
		return all, nil
	}
	cfg, err := g.loadConfig(true)
	if err != nil {
		return nil, err
	}
	return append(all, cfg.RuleOptions.User...), nil
}
