package pubsub

import (
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// The functions below let another collector that reads the same topics
// and subscriptions from elsewhere (cloudasset, from Cloud Asset
// Inventory) build exactly the artifacts this one emits, through the same
// code, so findings and fingerprints do not change when a user switches.

// TopicArtifact is the artifact CollectUnit emits for topic t of project, and
// whether t is backfill machinery by sel.
func TopicArtifact(sel *correlate.Selector, project string, t *pubsubpb.Topic) (model.Artifact, bool) {
	return (&Collector{sel: sel}).topic(project, t)
}

// SubscriptionArtifact is the artifact CollectUnit emits for subscription s of
// project, and whether it is backfill machinery. topics holds the
// artifacts of the backfill topics, by full topic name: a subscription on
// one of them belongs to its backfill.
func SubscriptionArtifact(sel *correlate.Selector, project string, s *pubsubpb.Subscription, topics map[string]model.Artifact) (model.Artifact, bool) {
	ties := make(map[string]tie, len(topics))
	for name, a := range topics {
		ties[name] = tie{id: a.BackfillID, how: a.Correlation}
	}
	return (&Collector{sel: sel}).subscription(project, s, ties)
}
