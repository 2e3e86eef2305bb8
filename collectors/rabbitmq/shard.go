package rabbitmq

import "github.com/bfaudit/bfaudit/collectors"

// Shard keeps the vhosts of one shard (collect --shard). A source that
// lists every vhost it can see cannot be divided: it goes whole.
func (r *RabbitMQ) Shard(keep func(string) bool) (int, bool) {
	if len(r.Vhosts) == 0 {
		return 0, false
	}
	r.Vhosts = collectors.KeepUnits(r.Vhosts, keep)
	return len(r.Vhosts), true
}
