package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// dryRunFlag is audit's --dry-run: bare (or =true, =-) the sinks' plan
// goes to stdout; =FILE writes it to FILE; =false (the default) is off.
type dryRunFlag struct {
	to string // "" off, "-" stdout, else a file
}

func (d *dryRunFlag) String() string {
	switch d.to {
	case "":
		return "false"
	case "-":
		return "true"
	}
	return d.to
}

func (d *dryRunFlag) Set(s string) error {
	switch strings.TrimSpace(s) {
	case "true", "-":
		d.to = "-"
	case "false":
		d.to = ""
	case "":
		return errors.New("give a file (--dry-run=plan.jsonl) or nothing (--dry-run)")
	default:
		d.to = s
	}
	return nil
}

// Type says "bool" so --help shows --dry-run as the switch it mostly is;
// its usage tells of =FILE.
func (d *dryRunFlag) Type() string { return "bool" }

func (d dryRunFlag) on() bool { return d.to != "" }

// dryRunOut is where the sinks write their dry-run plan, JSON Lines only.
type dryRunOut struct {
	w io.Writer
	// onStdout: the plan has stdout to itself, so the report meant for
	// stdout goes to stderr.
	onStdout bool
	file     *os.File
	path     string
}

// openDryRun opens the plan's stream. Without --dry-run a sink the config
// puts in dry_run still writes its plan, to stderr as before.
func openDryRun(g *globals, f dryRunFlag) (*dryRunOut, error) {
	switch f.to {
	case "":
		return &dryRunOut{w: g.stderr}, nil
	case "-":
		return &dryRunOut{w: g.stdout, onStdout: true}, nil
	}
	file, err := createFile(f.to)
	if err != nil {
		return nil, fmt.Errorf("--dry-run: %w", err)
	}
	return &dryRunOut{w: file, file: file, path: f.to}, nil
}

// close closes the plan's file, once; a failed close (a full disk) means
// the plan may be cut short, which the run must say.
func (d *dryRunOut) close() error {
	if d.file == nil {
		return nil
	}
	err := d.file.Close()
	d.file = nil
	if err != nil {
		return fmt.Errorf("--dry-run=%s: %w", d.path, err)
	}
	return nil
}
