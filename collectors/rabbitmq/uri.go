package rabbitmq

import (
	"net/url"

	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built and read here only:
//
//	rabbitmq://<source>/<vhost>/queue/<name>      a queue
//	rabbitmq://<source>/<vhost>/exchange/<name>   an exchange
//
// The source, the vhost and the name are path-escaped (the default vhost
// "/" is %2F).

// The kinds of object, as URIs name them.
const (
	partQueue    = "queue"
	partExchange = "exchange"
)

// uri names a queue or exchange: kind is partQueue or partExchange.
func (r *RabbitMQ) uri(vhost, kind, name string) string {
	return "rabbitmq://" + url.PathEscape(r.sourceName()) + "/" + url.PathEscape(vhost) + "/" + kind + "/" + url.PathEscape(name)
}

// RabbitObject is a queue or exchange, read from its URI.
type RabbitObject struct {
	Vhost    string
	Exchange bool // else a queue
	Name     string
}

// ParseRabbitMQ reads a RabbitMQ artifact.
func ParseRabbitMQ(a *model.Artifact) (RabbitObject, bool) {
	segs, ok := model.URISegments(a.URI, "rabbitmq")
	if !ok || len(segs) != 3 || segs[2] == "" {
		return RabbitObject{}, false
	}
	switch segs[1] {
	case partQueue:
		return RabbitObject{Vhost: segs[0], Name: segs[2]}, true
	case partExchange:
		return RabbitObject{Vhost: segs[0], Exchange: true, Name: segs[2]}, true
	}
	return RabbitObject{}, false
}
