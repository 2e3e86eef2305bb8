package kubernetes

import "github.com/bfaudit/bfaudit/collectors"

// Shard keeps the namespaces of one shard (collect --shard). A source that
// reads all namespaces in one listing cannot be divided: it goes whole.
func (c *Kubernetes) Shard(keep func(string) bool) (int, bool) {
	if len(c.Namespaces) == 0 {
		return 0, false
	}
	c.Namespaces = collectors.KeepUnits(c.Namespaces, keep)
	return len(c.Namespaces), true
}
