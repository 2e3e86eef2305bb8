// Command bfaudit audits backfill machinery: it collects what the systems
// hold, ties it to backfills, judges it against the cleanup discipline and
// reports. Commands only parse flags, call into packages and pick the exit
// code.
package main

import (
	"os"

	_ "github.com/bfaudit/bfaudit/collectors/all"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
