package kafka

import (
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// A consumer group's URI, built and read here only:
//
//	kafka://<cluster>/groups/<group>   a consumer group
//
// The cluster is the source's name; the group name is path-escaped, so
// '/' or '%' in it stays inside its segment.

// URI is the stable address of a consumer group.
func URI(cluster, group string) string {
	return "kafka://" + cluster + "/groups/" + url.PathEscape(group)
}

// KafkaGroup is a consumer group, read from its URI.
type KafkaGroup struct {
	Cluster string
	Group   string
}

// ParseKafka reads a Kafka consumer group artifact.
func ParseKafka(a *model.Artifact) (KafkaGroup, bool) {
	segs, ok := model.URISegments(a.URI, "kafka")
	if !ok || len(segs) != 2 || segs[0] != "groups" || segs[1] == "" {
		return KafkaGroup{}, false
	}
	rest, _ := strings.CutPrefix(a.URI, "kafka://")
	cluster, _, _ := strings.Cut(rest, "/")
	return KafkaGroup{Cluster: cluster, Group: segs[1]}, true
}
