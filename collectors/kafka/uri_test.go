package kafka

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a consumer group's URI, the commands, the
// fix action and the inference from a finding read back to the same
// cluster and group, whatever the group's name holds; a group without a
// name is never read as one.
func TestURIRoundTrip(t *testing.T) {
	for _, cluster := range []string{"prod-events", "broker-1.example:9092"} {
		for _, group := range remedytest.HostileNames {
			uri := URI(cluster, group)
			got, ok := ParseKafka(&model.Artifact{URI: uri})
			if ok != (group != "") || ok && got != (KafkaGroup{Cluster: cluster, Group: group}) {
				t.Errorf("%q read back as %+v (%v), want %q of %q", uri, got, ok, group, cluster)
			}
		}
	}
}
