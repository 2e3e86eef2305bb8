// Command bfaudit audits backfill machinery: it collects what the systems
// hold, ties it to backfills, judges it against the cleanup discipline and
// reports. Commands only parse flags, call into packages and pick the exit
// code.
package main

import (
	"os"

	"github.com/bfaudit/bfaudit/internal/memlimit"

	_ "github.com/bfaudit/bfaudit/collectors/all"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

// memory is what main did about the runtime's memory limit, logged at
// debug level once the logger exists.
var memory memlimit.Result

func main() {
	// Before anything is allocated: in a container, collect harder as the
	// heap nears the container's limit rather than be killed at it.
	memory = memlimit.Apply(os.Getenv)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
