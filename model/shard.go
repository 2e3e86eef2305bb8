package model

import "fmt"

// ShardMode says how a source took part in a sharded collection
// (`bfaudit collect --shard I/N`).
type ShardMode string

// Shard modes.
const (
	// ShardSplit: the source's units were divided among the shards by a
	// stable hash of their names; this shard collected its slice.
	ShardSplit ShardMode = "split"
	// ShardWhole and ShardElsewhere are written by versions before
	// sources declared their units (a source then went whole to one
	// shard); merging still reads them. ShardWhole: this shard (its
	// Owner) collected all of it.
	ShardWhole ShardMode = "whole"
	// ShardElsewhere: the source is collected whole by shard Owner, not
	// here. Its coverage in this estate is failed, so that this estate
	// audited alone concludes nothing about it.
	ShardElsewhere ShardMode = "elsewhere"
	// ShardEvery: a plan source, read by every shard (the other
	// collectors filter by the assets plans declare).
	ShardEvery ShardMode = "every"
)

// ShardSpec records, on a source's coverage, which shard of how many
// collected it and how. Index and Owner are 0-based.
type ShardSpec struct {
	Index int       `json:"index"`
	Count int       `json:"count"`
	Mode  ShardMode `json:"mode"`
	// Owner is the shard that collects a whole source (modes whole and
	// elsewhere).
	Owner int `json:"owner"`
}

// ShardName is how messages name shard i of n: "2/4" (0-based).
func ShardName(i, n int) string { return fmt.Sprintf("%d/%d", i, n) }
