package airflow

// Shard makes this source collect the DAGs of one shard (collect --shard):
// every shard lists the DAGs and the backfill runs (one call each), and
// reads and reports only the DAGs whose id falls in its slice, with their
// runs and backfill objects. How many DAGs that is is known only after
// listing, so the count returned is -1.
func (c *Airflow) Shard(keep func(dagID string) bool) (int, bool) {
	c.keep = keep
	return -1, true
}

// collects reports whether this shard collects the DAG.
func (c *Airflow) collects(dagID string) bool { return c.keep == nil || c.keep(dagID) }
