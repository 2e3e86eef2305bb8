package rules

import (
	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"

	"github.com/bfaudit/bfaudit/model"
)

// artifactKinds reads, from an expression's top-level conjunction, the
// artifact kinds it can be true for: a conjunct artifact.kind == "table",
// artifact.kind in ["table", "checkpoint"], or a disjunction of such
// comparisons. The engine then does not evaluate the rule on other kinds,
// as the built-in rules do not: most rules are about one kind, and most
// artifacts are of others. Skipping is exact, not a guess: in CEL,
// false && x is false whatever x is, an error included, so such an
// artifact could neither fire nor fail. nil means any kind.
func artifactKinds(checked *cel.Ast) map[model.Kind]bool {
	var kinds map[model.Kind]bool
	for _, c := range conjuncts(checked.NativeRep().Expr(), nil) {
		set, ok := kindSet(c)
		if !ok {
			continue
		}
		if kinds == nil {
			kinds = set
			continue
		}
		for k := range kinds { // several conjuncts: the kinds all allow
			if !set[k] {
				delete(kinds, k)
			}
		}
	}
	return kinds
}

// conjuncts flattens a && b && c.
func conjuncts(e ast.Expr, out []ast.Expr) []ast.Expr {
	if e.Kind() == ast.CallKind && e.AsCall().FunctionName() == operators.LogicalAnd {
		for _, a := range e.AsCall().Args() {
			out = conjuncts(a, out)
		}
		return out
	}
	return append(out, e)
}

// kindSet reads one conjunct as a set of kinds, if it is one.
func kindSet(e ast.Expr) (map[model.Kind]bool, bool) {
	if e.Kind() != ast.CallKind {
		return nil, false
	}
	call := e.AsCall()
	args := call.Args()
	switch call.FunctionName() {
	case operators.Equals:
		if len(args) != 2 {
			return nil, false
		}
		for _, p := range [][2]ast.Expr{{args[0], args[1]}, {args[1], args[0]}} {
			if s, ok := stringLiteral(p[1]); ok && isArtifactKind(p[0]) {
				return map[model.Kind]bool{model.Kind(s): true}, true
			}
		}
	case operators.In:
		if len(args) != 2 || !isArtifactKind(args[0]) || args[1].Kind() != ast.ListKind {
			return nil, false
		}
		set := map[model.Kind]bool{}
		for _, el := range args[1].AsList().Elements() {
			s, ok := stringLiteral(el)
			if !ok {
				return nil, false
			}
			set[model.Kind(s)] = true
		}
		return set, true
	case operators.LogicalOr:
		set := map[model.Kind]bool{}
		for _, a := range args {
			sub, ok := kindSet(a)
			if !ok {
				return nil, false
			}
			for k := range sub {
				set[k] = true
			}
		}
		return set, true
	}
	return nil, false
}

// isArtifactKind reports whether e is artifact.kind (not has(artifact.kind)).
func isArtifactKind(e ast.Expr) bool {
	if e.Kind() != ast.SelectKind {
		return false
	}
	sel := e.AsSelect()
	op := sel.Operand()
	return sel.FieldName() == "kind" && !sel.IsTestOnly() && op.Kind() == ast.IdentKind && op.AsIdent() == "artifact"
}

func stringLiteral(e ast.Expr) (string, bool) {
	if e.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().Value().(string)
	return s, ok
}
