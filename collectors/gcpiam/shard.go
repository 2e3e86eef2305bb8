package gcpiam

import "github.com/bfaudit/bfaudit/collectors"

// Shard keeps the projects of one shard (collect --shard): each project is
// its own unit, read independently of the others.
func (c *Collector) Shard(keep func(string) bool) (int, bool) {
	if len(c.Projects) == 0 {
		return 0, false
	}
	c.Projects = collectors.KeepUnits(c.Projects, keep)
	return len(c.Projects), true
}
