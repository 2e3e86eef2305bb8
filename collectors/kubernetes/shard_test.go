package kubernetes

import (
	"slices"
	"testing"
)

// Listed namespaces split; reading all namespaces (none listed) must stay
// whole: an empty slice would otherwise mean "all namespaces" again.
func TestShardNamespaces(t *testing.T) {
	c := &Kubernetes{Namespaces: []string{"a", "b", "c"}}
	kept, ok := c.Shard(func(ns string) bool { return ns != "b" })
	if !ok || kept != 2 || !slices.Equal(c.Namespaces, []string{"a", "c"}) {
		t.Errorf("kept %d, ok %v, namespaces %v", kept, ok, c.Namespaces)
	}
	all := &Kubernetes{}
	if _, ok := all.Shard(func(string) bool { return false }); ok || all.Namespaces != nil {
		t.Errorf("all namespaces split: ok %v, namespaces %v", ok, all.Namespaces)
	}
}
