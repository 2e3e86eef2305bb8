package config

import (
	"errors"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/internal/decodeerr"
)

// Problems is every problem found in a config file, one *Error each, in
// the order of their lines (those at no line last): `config validate`
// shows them all at once rather than one per run.
type Problems []*Error

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

func (ps Problems) Unwrap() []error {
	out := make([]error, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// Count is how many problems err holds: the length of a Problems, 1 for
// any other error, 0 for nil.
func Count(err error) int {
	var ps Problems
	if errors.As(err, &ps) {
		return len(ps)
	}
	if err == nil {
		return 0
	}
	return 1
}

// collector gathers problems while a config is checked.
type collector struct {
	c  *Config
	ps Problems
}

// add records err under key (a full key path, "" for the whole file).
// Joined errors become a problem each; a decodeerr.Problem's key is
// under key, and its line is its own when it has one; a plain error
// that starts with a key written in the file ("slack.period: ...") is
// placed at that key.
func (col *collector) add(key string, err error) {
	if err == nil {
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if _, isProblems := err.(Problems); !isProblems {
			for _, e := range j.Unwrap() {
				col.add(key, e)
			}
			return
		}
	}
	var ps Problems
	if errors.As(err, &ps) {
		col.ps = append(col.ps, ps...)
		return
	}
	var ce *Error
	if errors.As(err, &ce) {
		var p *decodeerr.Problem
		_, joined := ce.Err.(interface{ Unwrap() []error })
		if joined || (errors.As(ce.Err, &p) && p.Key != "") {
			col.add(ce.Key, ce.Err) // a problem each, at its own key
			return
		}
		col.ps = append(col.ps, ce)
		return
	}
	msg := err.Error()
	var p *decodeerr.Problem
	line := 0
	if errors.As(err, &p) {
		key, line, msg = joinKey(key, p.Key), p.Line, p.Msg
	} else if k, rest, ok := strings.Cut(msg, ": "); ok && !strings.ContainsAny(k, " \"'") {
		if l, exact := col.c.locate(joinKey(key, k)); exact {
			key, line, msg = joinKey(key, k), l, rest
		}
	}
	if line == 0 {
		line = col.c.lineOf(key)
	}
	col.ps = append(col.ps, &Error{File: col.c.File, Line: line, Key: key, Err: errors.New(msg)})
}

// failed reports whether a problem is already recorded at key, above it
// or below it: a value that did not decode is not checked again.
func (col *collector) failed(key string) bool {
	for _, p := range col.ps {
		if p.Key == key || under(p.Key, key) || under(key, p.Key) {
			return true
		}
	}
	return false
}

func under(key, parent string) bool {
	return parent != "" && strings.HasPrefix(key, parent) && len(key) > len(parent) && strings.ContainsRune(".[ ", rune(key[len(parent)]))
}

// err returns the problems in line order, nil when there are none.
func (col *collector) err() error {
	if len(col.ps) == 0 {
		return nil
	}
	ps := slices.Clone(col.ps)
	slices.SortStableFunc(ps, func(a, b *Error) int {
		switch {
		case a.Line == b.Line:
			return 0
		case a.Line == 0:
			return 1
		case b.Line == 0:
			return -1
		}
		return a.Line - b.Line
	})
	return ps
}

func joinKey(prefix, key string) string {
	switch {
	case prefix == "":
		return key
	case key == "":
		return prefix
	case strings.HasPrefix(key, "["):
		return prefix + key
	}
	return prefix + "." + key
}

// where names a key's place for a message: "bfaudit.yaml:14: sources[0].plans[1]".
func (c *Config) where(key string) string {
	return (&Error{File: c.File, Line: c.lineOf(key), Key: key}).head(c.lineOf(key))
}
