package rabbitmq

import (
	"slices"
	"testing"
)

// Listed vhosts split; every vhost the user sees (none listed) stays whole.
func TestShardVhosts(t *testing.T) {
	r := &RabbitMQ{Vhosts: []string{"/", "etl"}}
	kept, ok := r.Shard(func(v string) bool { return v == "/" })
	if !ok || kept != 1 || !slices.Equal(r.Vhosts, []string{"/"}) {
		t.Errorf("kept %d, ok %v, vhosts %v", kept, ok, r.Vhosts)
	}
	if _, ok := (&RabbitMQ{}).Shard(func(string) bool { return true }); ok {
		t.Error("every vhost split")
	}
}
