package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// suggestFlag adds "did you mean" to an unknown long flag, as cobra does
// for commands: the command's flag nearest in spelling (Levenshtein
// distance at most 2), or the one the typed name begins.
func suggestFlag(cmd *cobra.Command, err error) error {
	typed, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	typed, _, _ = strings.Cut(typed, "=")
	best, bestDist := "", 3
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := levenshtein(typed, f.Name)
		if len(typed) >= 3 && strings.HasPrefix(f.Name, typed) {
			d = min(d, 1)
		}
		if d < bestDist || (d == bestDist && f.Name < best) {
			best, bestDist = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if best == "" {
		return err
	}
	return fmt.Errorf("%w (did you mean --%s?)", err, best)
}

// levenshtein is the edit distance between a and b: insertions,
// deletions and substitutions of one byte each.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
