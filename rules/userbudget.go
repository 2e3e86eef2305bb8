package rules

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"
)

// UserLimits bound what one user rule may spend, so a costly expression (a
// nested .map() over a long list, a string grown by repeated replace)
// ends as a BF902 finding for that rule instead of hanging the audit or
// crashing it out of memory. The other rules run as usual.
type UserLimits struct {
	// MaxExprLength caps an expression's text, in bytes, checked at load.
	MaxExprLength int
	// EvalCost is CEL's cost limit for one evaluation (one artifact or one
	// backfill); CEL counts about one unit per operation and per element
	// or ten bytes it goes through.
	EvalCost uint64
	// EvalMemory caps the elements one evaluation may hold at its peak.
	EvalMemory uint32
	// EvalTimeout is the deadline of one evaluation, checked between
	// iterations of comprehensions (every InterruptEvery).
	EvalTimeout time.Duration
	// InterruptEvery is how many comprehension iterations pass between
	// checks of the deadline.
	InterruptEvery uint
	// RuleBudget is the wall time one rule may spend over the whole estate.
	RuleBudget time.Duration
	// MaxOverLimit is how many evaluations may hit EvalCost, EvalMemory or
	// EvalTimeout before the rule is stopped for the rest of the run: an
	// expression that blows its limit on a few objects will on the rest.
	MaxOverLimit int
}

// DefaultUserLimits are the limits user rules are compiled with. One
// evaluation at the cost limit takes about a tenth of a second.
var DefaultUserLimits = UserLimits{
	MaxExprLength:  10_000,
	EvalCost:       1_000_000,
	EvalMemory:     1_000_000,
	EvalTimeout:    time.Second,
	InterruptEvery: 100,
	RuleBudget:     30 * time.Second,
	MaxOverLimit:   3,
}

// userBudget is one user rule's spending during one evaluation pass.
type userBudget struct {
	limits    UserLimits
	spent     time.Duration
	overLimit int
	// stopped says why the rule no longer runs ("" while it does);
	// skipped counts the objects it was not evaluated on since.
	stopped string
	skipped int
}

// eval runs the rule's program on act within the rule's budget. It
// returns the value, or an error that says which limit was hit.
func (b *userBudget) eval(p *userProgram, act *activation) (ref.Val, error) {
	start := time.Now()
	var val ref.Val
	var err error
	if p.loops {
		timeout := min(b.limits.EvalTimeout, b.limits.RuleBudget-b.spent)
		ctx, cancel := context.WithTimeout(context.Background(), max(timeout, time.Millisecond))
		val, _, err = p.prg.ContextEval(ctx, act)
		cancel()
	} else {
		// Without a comprehension nothing checks the deadline, and the
		// cost limit bounds the time: a context and a timer for each of
		// a million evaluations would cost more than the expression.
		val, _, err = p.prg.Eval(act)
	}
	b.spent += time.Since(start)
	if err != nil {
		if over := b.overLimitError(err); over != nil {
			b.overLimit++
			if b.overLimit >= b.limits.MaxOverLimit {
				b.stopped = fmt.Sprintf("stopped after %d evaluations over their limits", b.overLimit)
			}
			err = over
		}
	} else if val == nil {
		err = errors.New("no value")
	}
	if b.stopped == "" && b.spent >= b.limits.RuleBudget {
		b.stopped = fmt.Sprintf("stopped: spent its whole evaluation budget of %s", b.limits.RuleBudget)
	}
	if err != nil {
		return nil, err
	}
	return val, nil
}

// overLimitError rewords CEL's cancellations as what the user should read;
// nil when err is an ordinary evaluation error.
func (b *userBudget) overLimitError(err error) error {
	var ce interpreter.EvalCancelledError
	switch {
	case errors.As(err, &ce) && ce.Cause == interpreter.CostLimitExceeded:
		return fmt.Errorf("over its evaluation budget: cost limit of %d exceeded", b.limits.EvalCost)
	case errors.As(err, &ce) && ce.Cause == interpreter.MemoryLimitExceeded:
		return fmt.Errorf("over its evaluation budget: memory limit of %d elements exceeded", b.limits.EvalMemory)
	case errors.Is(err, interpreter.InterruptError{}), errors.Is(err, context.DeadlineExceeded), errors.As(err, &ce):
		return fmt.Errorf("over its evaluation budget: took longer than %s", b.limits.EvalTimeout)
	}
	return nil
}
