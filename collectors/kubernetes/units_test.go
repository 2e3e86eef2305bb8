package kubernetes

import (
	"context"
	"slices"
	"testing"
)

// Listed namespaces are the units the framework divides between shards;
// reading all namespaces (none listed) is one listing, the whole source.
func TestUnitsAreNamespaces(t *testing.T) {
	c := &Kubernetes{Namespaces: []string{"a", "b", "c"}}
	if units, err := c.Units(context.Background()); err != nil || !slices.Equal(units, []string{"a", "b", "c"}) {
		t.Errorf("units %q, %v; want the namespaces", units, err)
	}
	all := &Kubernetes{}
	if units, err := all.Units(context.Background()); err != nil || !slices.Equal(units, []string{""}) {
		t.Errorf("all namespaces: units %q, %v; want the whole source", units, err)
	}
}
