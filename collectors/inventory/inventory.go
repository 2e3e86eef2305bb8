// Package inventory collects artifacts from JSON or YAML files exported by
// other tools, for systems that have no collector of their own yet
// (feature flags, dashboards, alerts, notebooks).
//
// Units: every file is one unit, its scope path being the file's path as
// configured (relative to the config file's directory, "/"-separated).
// Every artifact read from a file carries that path as its Scope, so an
// error at the file (unreadable, missing, empty, malformed) covers exactly
// what the file reported. The scope an entry declares is kept in the
// attribute declared_scope.
package inventory

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

//go:embed sample.yaml
var sample string

func init() {
	collectors.Register("inventory", func() collectors.Collector { return &Inventory{} }, sample)
}

// maxFileBytes caps one inventory file: YAML decoding takes many times a
// file's size in memory, and exports of tens of thousands of entries stay
// well below this.
const maxFileBytes = 64 << 20

// Inventory reads artifact lists from files.
type Inventory struct {
	Files []string `mapstructure:"files"`
	// System names the artifacts' system when an entry does not.
	System string `mapstructure:"system"`

	env collectors.Env
}

// Init checks the config.
func (i *Inventory) Init(env collectors.Env) error {
	i.env = env
	if len(i.Files) == 0 {
		return errors.New("files: missing; list one or more JSON or YAML inventory files")
	}
	for n, f := range i.Files {
		if strings.TrimSpace(f) == "" {
			return fmt.Errorf("files[%d]: empty path", n)
		}
	}
	return nil
}

// Inputs are the inventory files.
func (i *Inventory) Inputs() []collectors.Input {
	return collectors.Inputs(i.env.BaseDir, "files", i.Files)
}

// Units are the configured files.
func (i *Inventory) Units(context.Context) ([]string, error) {
	units := make([]string, len(i.Files))
	for n, f := range i.Files {
		units[n] = Unit(f)
	}
	return units, nil
}

// CollectUnit reads one file; a bad entry is reported against the file
// and the others are kept.
func (i *Inventory) CollectUnit(_ context.Context, unit string, sink collectors.Sink) error {
	path := i.env.Path(filepath.FromSlash(unit))
	data, err := safefile.ReadLimit(path, maxFileBytes)
	if err != nil {
		return fmt.Errorf("inventory: %s: %w", unit, safefile.PlainError(path, err))
	}
	arts, errs := Parse(unit, data, i.System)
	sink.AddRead(unit, "entries", len(arts), 0)
	for _, a := range arts {
		sink.AddArtifact(a)
	}
	for _, e := range errs {
		sink.AddError(unit, e)
	}
	return nil
}

// Unit is the scope path of a configured inventory file: the path as
// written in the config, cleaned, with "/" separators.
func Unit(configured string) string {
	return filepath.ToSlash(filepath.Clean(configured))
}
