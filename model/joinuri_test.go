package model

import (
	"slices"
	"testing"
)

// What JoinURI writes, NonEmptySegments reads back part by part, a slash
// or a percent in a name included; a URI of another shape is refused.
func TestJoinURIRoundTrip(t *testing.T) {
	parts := []string{"111111111111", "eu-west-1", "a/b", "50%"}
	uri := JoinURI("glue", "aws catalog", parts...)
	if uri != "glue://aws%20catalog/111111111111/eu-west-1/a%2Fb/50%25" {
		t.Errorf("JoinURI = %s", uri)
	}
	if got, ok := NonEmptySegments(uri, "glue", 4); !ok || !slices.Equal(got, parts) {
		t.Errorf("NonEmptySegments = %v %v", got, ok)
	}
	for _, bad := range []string{uri + "/more", "glue://s/a//b/c", "scheduler://s/a/b/c/d", "glue://s/a/b/c/%zz"} {
		if got, ok := NonEmptySegments(bad, "glue", 4); ok {
			t.Errorf("%s read as %v", bad, got)
		}
	}
}
