package alertmanager

import (
	"slices"
	"testing"
)

// amtool silence add takes one matcher an argument, quoted values kept.
func TestSplitMatchers(t *testing.T) {
	got, ok := splitMatchers(`{alertname="Rev\"enue, x", job=~"da.*", env!="prod"}`)
	want := []string{`alertname="Rev\"enue, x"`, `job=~"da.*"`, `env!="prod"`}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("got %q %v, want %q", got, ok, want)
	}
	if _, ok := splitMatchers(`alertname="x"`); ok {
		t.Error("text without braces accepted")
	}
}
