package kubeclient

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NamespaceUnits are the units of a source that reads namespaces: each
// configured namespace (its name is its scope: a namespace name holds no
// "/" or "%"), or the whole cluster ("") when none is.
func NamespaceUnits(namespaces []string) []string {
	if len(namespaces) == 0 {
		return []string{""}
	}
	return slices.Clone(namespaces)
}

// NamespaceOf is the namespace a unit of NamespaceUnits reads: the
// configured namespace it is, or all namespaces ("") for the whole
// cluster.
func NamespaceOf(unit string, namespaces []string) string {
	if slices.Contains(namespaces, unit) {
		return unit
	}
	return metav1.NamespaceAll
}
