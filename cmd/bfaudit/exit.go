package main

import (
	"errors"
	"fmt"
)

// Exit codes (README.md, "Commands"; docs/trust.md for exit 3).
const (
	exitOK         = 0 // nothing at or above --fail-on
	exitFindings   = 1 // findings at or above --fail-on
	exitUsage      = 2 // bad usage or config
	exitIncomplete = 3 // the audit ran but some source or sink failed
)

// exitError carries an exit code up through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

func codeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}
