package kubeclient

import "slices"

// NamespaceUnits are the units of a source that reads namespaces: each
// configured namespace (its name is its scope: a namespace name holds no
// "/" or "%"), or the whole cluster ("") when none is.
func NamespaceUnits(namespaces []string) []string {
	if len(namespaces) == 0 {
		return []string{""}
	}
	return slices.Clone(namespaces)
}
