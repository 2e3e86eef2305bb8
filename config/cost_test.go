package config

import (
	"strings"
	"testing"
)

// A user rule certain to exceed the cost limit on every object is refused
// at load with the file, the rule and the column of its outermost loop.
func TestCostlyUserRuleRefusedAtLoad(t *testing.T) {
	ten := "[1,2,3,4,5,6,7,8,9,10]"
	expr := "x"
	for _, v := range []string{"f", "e", "d", "c", "b", "a"} {
		expr = ten + ".map(" + v + ", " + expr + ")"
	}
	expr = strings.Replace(expr, ", x)", ", a)", 1) + ".size() > 0"
	p := write(t, "rules:\n  custom:\n    - id: HUGE1\n      title: t\n      severity: low\n      remediation: r\n      applies_to: artifact\n      expr: '"+expr+"'\n")
	_, err := Load(NewViper(), p)
	want := p + ":8: rules.custom[0] (HUGE1).expr: column 27: costs at least"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want it to start with %q", err, want)
	}
}
