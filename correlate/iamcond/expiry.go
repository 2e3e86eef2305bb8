// Package iamcond reads what bfaudit needs out of IAM: the time after which
// a conditional grant stops being in force, in Google Cloud (here) and in
// AWS policy statements (aws.go), and whether a Google Cloud member
// belongs to a backfill (members.go). Google's conditions are CEL
// (https://cloud.google.com/iam/docs/conditions-overview), so they are read
// with cel-go's parser and its syntax tree, never pattern-matched as text:
// a regular expression would take `request.time > timestamp(...)` (a start,
// not an end) or a bound inside `||` for an expiry.
package iamcond

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
)

// parserEnv is built once: an environment with no declarations is enough
// to parse, and building one is not free.
var parserEnv = sync.OnceValues(func() (*cel.Env, error) { return cel.NewEnv() })

// Expiry returns the time after which the condition expr can no longer be
// true because of an upper bound on request.time. It understands
//
//	request.time < timestamp("2026-03-01T00:00:00Z")
//	request.time <= timestamp(...)      // also the reversed timestamp(...) > request.time
//	A && B                              // the earliest upper bound of the parts that have one
//	A || B                              // the latest bound, only when every branch has one
//
// ok is false when the condition does not bound request.time from above
// (no time clause, a lower bound only, an `||` with an unbounded branch, a
// negation): such a grant is not time-bound. An expression that does not
// parse, or a timestamp literal that is not RFC 3339, is an error naming
// the line and column.
func Expiry(expr string) (t time.Time, ok bool, err error) {
	if strings.TrimSpace(expr) == "" {
		return time.Time{}, false, nil
	}
	env, err := parserEnv()
	if err != nil {
		return time.Time{}, false, fmt.Errorf("iamcond: build CEL parser: %w", err)
	}
	parsed, iss := env.Parse(expr)
	if iss != nil && len(iss.Errors()) > 0 {
		e := iss.Errors()[0]
		return time.Time{}, false, fmt.Errorf("iamcond: condition does not parse at line %d, column %d: %s",
			e.Location.Line(), e.Location.Column()+1, e.Message)
	}
	native := parsed.NativeRep()
	w := walker{info: native.SourceInfo()}
	b, err := w.bound(native.Expr())
	if err != nil {
		return time.Time{}, false, err
	}
	return b.t, b.ok, nil
}

// upper is an upper bound on request.time, or none.
type upper struct {
	t  time.Time
	ok bool
}

type walker struct{ info *celast.SourceInfo }

func (w walker) bound(e celast.Expr) (upper, error) {
	if e.Kind() != celast.CallKind {
		return upper{}, nil
	}
	call := e.AsCall()
	args := call.Args()
	switch call.FunctionName() {
	case operators.LogicalAnd:
		// Every part must hold, so the earliest bound among them wins;
		// parts with no bound do not loosen it.
		var out upper
		for _, a := range args {
			b, err := w.bound(a)
			if err != nil {
				return upper{}, err
			}
			if b.ok && (!out.ok || b.t.Before(out.t)) {
				out = b
			}
		}
		return out, nil
	case operators.LogicalOr:
		// Any branch may hold, so the grant ends only when the last
		// bounded branch ends, and never if one branch is unbounded.
		var out upper
		for _, a := range args {
			b, err := w.bound(a)
			if err != nil {
				return upper{}, err
			}
			if !b.ok {
				return upper{}, nil
			}
			if !out.ok || b.t.After(out.t) {
				out = b
			}
		}
		return out, nil
	case operators.Less, operators.LessEquals:
		// request.time < T
		if len(args) == 2 && isRequestTime(args[0]) {
			return w.timestamp(args[1])
		}
	case operators.Greater, operators.GreaterEquals:
		// T > request.time
		if len(args) == 2 && isRequestTime(args[1]) {
			return w.timestamp(args[0])
		}
	}
	// Anything else (a lower bound, a negation, resource checks) says
	// nothing about when the grant ends.
	return upper{}, nil
}

// timestamp reads timestamp("RFC 3339") as an upper bound. A bound that is
// not a literal (arithmetic, a variable) cannot be read statically, so it
// is treated as no bound: the grant is then reported as not time-bound,
// which errs toward a finding rather than a missed one.
func (w walker) timestamp(e celast.Expr) (upper, error) {
	if e.Kind() != celast.CallKind {
		return upper{}, nil
	}
	call := e.AsCall()
	if call.FunctionName() != "timestamp" || call.IsMemberFunction() || len(call.Args()) != 1 {
		return upper{}, nil
	}
	arg := call.Args()[0]
	if arg.Kind() != celast.LiteralKind {
		return upper{}, nil
	}
	s, isString := arg.AsLiteral().(types.String)
	if !isString {
		return upper{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, string(s))
	if err != nil {
		loc := w.info.GetStartLocation(arg.ID())
		return upper{}, fmt.Errorf("iamcond: timestamp %q at line %d, column %d is not RFC 3339 (e.g. 2026-03-01T00:00:00Z)",
			string(s), loc.Line(), loc.Column()+1)
	}
	return upper{t: t.UTC(), ok: true}, nil
}

func isRequestTime(e celast.Expr) bool {
	if e.Kind() != celast.SelectKind {
		return false
	}
	sel := e.AsSelect()
	op := sel.Operand()
	return !sel.IsTestOnly() && sel.FieldName() == "time" &&
		op.Kind() == celast.IdentKind && op.AsIdent() == "request"
}

// ConditionKey names a conditional grant's condition in its URI: the
// condition's title, or a hash of its expression when it has none; ""
// for no condition. Two grants of one role and member differ only by it.
func ConditionKey(title, expression string) string {
	if title != "" || expression == "" {
		return title
	}
	sum := sha256.Sum256([]byte(expression))
	return hex.EncodeToString(sum[:6])
}
