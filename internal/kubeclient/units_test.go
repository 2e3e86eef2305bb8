package kubeclient

import "testing"

// Each configured namespace is a unit that reads itself; without any, the
// one unit is the whole cluster, read across all namespaces.
func TestNamespaceUnitsReadBack(t *testing.T) {
	ns := []string{"team-a", "team-b"}
	for _, u := range NamespaceUnits(ns) {
		if got := NamespaceOf(u, ns); got != u {
			t.Errorf("NamespaceOf(%q) = %q", u, got)
		}
	}
	if units := NamespaceUnits(nil); len(units) != 1 || NamespaceOf(units[0], nil) != "" {
		t.Errorf("no namespaces: units %q, want the whole cluster read across all", units)
	}
}
