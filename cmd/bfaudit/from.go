package main

import (
	"fmt"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/model"
)

// loadEstates reads the --from estates (files, directories, quoted globs)
// and merges them; entries that differed between estates are reported on
// stderr (the later-collected estate's version was kept).
func loadEstates(g *globals, from []string) (*model.Estate, error) {
	from, err := expandGlobs(from)
	if err != nil {
		return nil, fmt.Errorf("--from %w", err)
	}
	paths, err := audit.EstatePaths(from)
	if err != nil {
		return nil, err
	}
	est, notes, err := audit.LoadEstates(paths)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		fmt.Fprintf(g.stderr, "note: --from: %s\n", n)
	}
	return est, nil
}
