package rules

import (
	"fmt"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
)

// checkCost refuses an expression whose least possible cost, as CEL's
// checker estimates it, is over the cost limit of one evaluation: it
// would fail on every object. The upper estimate is not used: it is
// unbounded for any rule that reads a list, map or string of the model
// (their sizes are unknown), so it would refuse ordinary rules.
func checkCost(env *cel.Env, checked *cel.Ast, expr string, limits UserLimits) (err error) {
	defer func() {
		// The estimator is a help, not a gate: if it fails, the runtime
		// limits still hold.
		if recover() != nil {
			err = nil
		}
	}()
	est, err := env.EstimateCost(checked, nil)
	if err != nil || est.Min <= limits.EvalCost {
		return nil
	}
	where := "column 1"
	if loc, ok := firstLoop(checked); ok {
		where = position(expr, loc.Line(), loc.Column())
	}
	return fmt.Errorf("%s: costs at least %d to evaluate on one object, over the limit of %d; nested .map(), .filter(), .all() or .exists() over long lists multiply their lengths",
		where, est.Min, limits.EvalCost)
}

// firstLoop finds the outermost comprehension (.map(), .exists()...), the
// usual culprit of a costly expression.
func firstLoop(checked *cel.Ast) (loc interface {
	Line() int
	Column() int
}, ok bool) {
	a := checked.NativeRep()
	var id int64
	ast.PreOrderVisit(a.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if id == 0 && e.Kind() == ast.ComprehensionKind {
			id = e.ID()
		}
	}))
	if id == 0 {
		return nil, false
	}
	l := a.SourceInfo().GetStartLocation(id)
	return l, l.Line() > 0
}

// hasLoop reports whether the expression has a comprehension.
func hasLoop(checked *cel.Ast) bool {
	_, ok := firstLoop(checked)
	return ok
}

// withinCost reports whether CEL's checker bounds the expression's cost
// within the limit of one evaluation on any object: its upper estimate
// (what Kubernetes budgets validation rules with) is at most the limit.
// Such an expression cannot exceed the cost limit, nor the memory limit,
// which counts elements that each cost at least one unit to make.
func withinCost(env *cel.Env, checked *cel.Ast, limits UserLimits) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // no estimate: track it at run time
		}
	}()
	est, err := env.EstimateCost(checked, nil)
	return err == nil && est.Max <= limits.EvalCost && uint64(limits.EvalMemory) >= limits.EvalCost
}
