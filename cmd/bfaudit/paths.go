package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// expandPaths turns the files named on the command line into files: a
// glob (quoted, so the shell left it: 'plans/*.yaml') becomes its matches,
// a directory every file in it whose name ends in one of exts, each
// sorted; anything else is kept for the reader to open or refuse. A glob
// or directory that holds nothing is an error: checking nothing would
// read as a clean bill.
func expandPaths(args []string, exts ...string) ([]string, error) {
	args, err := expandGlobs(args)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, e := range entries {
			if !e.IsDir() && hasExt(e.Name(), exts) {
				out = append(out, filepath.Join(a, e.Name()))
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: a directory with no *%s file", a, strings.Join(exts, " or *"))
		}
	}
	return out, nil
}

func hasExt(name string, exts []string) bool {
	for _, e := range exts {
		if strings.HasSuffix(name, e) {
			return true
		}
	}
	return false
}

// expandGlobs replaces each glob among args by its matches, sorted.
func expandGlobs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if !strings.ContainsAny(a, "*?[") {
			out = append(out, a)
			continue
		}
		matches, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s: matches no file", a)
		}
		slices.Sort(matches)
		out = append(out, matches...)
	}
	return out, nil
}
