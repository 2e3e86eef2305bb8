package rules

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/ext"

	"github.com/bfaudit/bfaudit/model"
)

// UserRuleSpec is a user rule as written in config (rules.custom[i]).
type UserRuleSpec struct {
	ID          string
	Name        string // optional; defaults to the id in lower case
	Title       string
	Rationale   string // optional
	Severity    model.Severity
	Remediation string
	Expr        string
	// AppliesTo is "artifact" (evaluated once per artifact) or "backfill"
	// (once per known backfill).
	AppliesTo string
}

// Where a user rule is evaluated.
const (
	AppliesToArtifact = "artifact"
	AppliesToBackfill = "backfill"
)

// SpecError is a user rule that cannot be used: Key names it
// ("rules.custom[2] (ACME001).expr") and Err says what is wrong, with the
// line and column inside the expression when CEL gave them.
type SpecError struct {
	Key string
	Err error
}

func (e *SpecError) Error() string { return e.Key + ": " + e.Err.Error() }

func (e *SpecError) Unwrap() error { return e.Err }

type userProgram struct {
	prg    cel.Program
	limits UserLimits
	// loops says the expression has a comprehension (.map(), .exists()...):
	// only those can be interrupted at the deadline of one evaluation, so
	// only those pay for a context and its timer.
	loops bool
	// kinds, when set, are the only artifact kinds the expression can be
	// true for (artifactKinds); the engine skips the others.
	kinds map[model.Kind]bool
}

var userIDRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// userEnv declares the variables a user rule sees. The model's structs are
// exposed as CEL object types through their JSON field names, so a
// misspelt field (artifact.knd) is a compile error at load, not a silent
// false at run time. has(x.f) is true when the field is set (not its zero
// value): has(artifact.expires_at) says whether an expiry is known.
var userEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		ext.NativeTypes(
			reflect.TypeOf(model.Artifact{}), reflect.TypeOf(model.Backfill{}), reflect.TypeOf(model.DecisionRecord{}),
			ext.ParseStructTag("json"),
		),
		tagFields,
		cel.Variable("artifact", cel.ObjectType("model.Artifact")),
		cel.Variable("backfill", cel.ObjectType("model.Backfill")),
		cel.Variable("record", cel.ObjectType("model.DecisionRecord")),
		cel.Variable("now", cel.TimestampType),
		ext.Strings(),
		cel.ParserExpressionSizeLimit(DefaultUserLimits.MaxExprLength),
	)
})

// CompileUserRules checks and compiles user rules once, when the config
// loads. Errors name the rule by its position and id and, for the
// expression, the line and column CEL points at. The programs run under
// DefaultUserLimits; an expression certain to exceed them on every object
// is refused here.
func CompileUserRules(specs []UserRuleSpec) ([]*Rule, error) {
	return compileUserRules(specs, DefaultUserLimits)
}

func compileUserRules(specs []UserRuleSpec, limits UserLimits) ([]*Rule, error) {
	env, err := userEnv()
	if err != nil {
		return nil, fmt.Errorf("rules: build CEL environment: %w", err)
	}
	var out []*Rule
	ids := map[string]bool{}
	for i, s := range specs {
		key := fmt.Sprintf("rules.custom[%d]", i)
		if s.ID != "" {
			key += " (" + s.ID + ")"
		}
		bad := func(field, format string, args ...any) error {
			return &SpecError{Key: key + "." + field, Err: fmt.Errorf(format, args...)}
		}
		switch {
		case s.ID == "":
			return nil, bad("id", "missing: give the rule an id such as ACME001")
		case !userIDRE.MatchString(s.ID):
			return nil, bad("id", "%q: use letters, digits, - and _, starting with a letter", s.ID)
		case ids[strings.ToUpper(s.ID)]:
			return nil, bad("id", "%s is used by another user rule", s.ID)
		case s.Title == "":
			return nil, bad("title", "missing: one line saying what the rule flags")
		case s.Remediation == "":
			return nil, bad("remediation", "missing: say how to fix a finding")
		case !s.Severity.IsValid():
			return nil, bad("severity", "missing or invalid (critical, high, medium, low or info)")
		case s.AppliesTo != AppliesToArtifact && s.AppliesTo != AppliesToBackfill:
			return nil, bad("applies_to", "%q: expected artifact or backfill", s.AppliesTo)
		case strings.TrimSpace(s.Expr) == "":
			return nil, bad("expr", "missing: a CEL expression returning bool")
		case len(s.Expr) > limits.MaxExprLength:
			return nil, bad("expr", "%d bytes long, over the limit of %d", len(s.Expr), limits.MaxExprLength)
		}
		if _, builtin := Lookup(s.ID); builtin {
			return nil, bad("id", "%s is a built-in rule's id or name", s.ID)
		}
		ids[strings.ToUpper(s.ID)] = true
		checked, iss := env.Compile(s.Expr)
		if iss != nil && iss.Err() != nil {
			e := iss.Errors()[0]
			return nil, &SpecError{Key: key + ".expr", Err: fmt.Errorf("%s: %s", position(s.Expr, e.Location.Line(), e.Location.Column()), e.Message)}
		}
		if t := checked.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
			return nil, &SpecError{Key: key + ".expr", Err: fmt.Errorf("returns %s, want bool (a rule fires when its expression is true)", t)}
		}
		if err := checkCost(env, checked, s.Expr, limits); err != nil {
			return nil, &SpecError{Key: key + ".expr", Err: err}
		}
		opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize), cel.InterruptCheckFrequency(limits.InterruptEvery)}
		if !withinCost(env, checked, limits) {
			// Tracking the cost and memory of every evaluation doubles
			// its time, so only a rule that could go over is tracked.
			opts = append(opts, cel.CostLimit(limits.EvalCost), cel.MemoryLimit(limits.EvalMemory))
		}
		prg, err := env.Program(checked, opts...)
		if err != nil {
			return nil, &SpecError{Key: key + ".expr", Err: err}
		}
		name := s.Name
		if name == "" {
			name = strings.ToLower(s.ID)
		}
		rationale := s.Rationale
		if rationale == "" {
			rationale = "User rule from config."
		}
		out = append(out, &Rule{
			ID: s.ID, Name: name, Title: s.Title, Rationale: rationale,
			Remediation: s.Remediation, Severity: s.Severity, Step: model.StepPlan,
			Expr: s.Expr, AppliesTo: s.AppliesTo, program: &userProgram{prg: prg, limits: limits, loops: hasLoop(checked), kinds: artifactKinds(checked)},
		})
	}
	return out, nil
}

// position says where in an expression CEL found a problem: the column
// for one-line expressions, line and column otherwise (both from 1).
func position(expr string, line, col int) string {
	if !strings.Contains(strings.TrimSpace(expr), "\n") {
		return fmt.Sprintf("column %d", col+1)
	}
	return fmt.Sprintf("line %d, column %d", line, col+1)
}
