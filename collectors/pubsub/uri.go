package pubsub

import "github.com/bfaudit/bfaudit/model"

// Artifact URIs, built and read here only (the cloudasset collector builds
// the same for topics and subscriptions through TopicArtifact and
// SubscriptionArtifact):
//
//	pubsub://<project>/topics/<name>          a topic
//	pubsub://<project>/subscriptions/<name>   a subscription
//	pubsub://<project>/snapshots/<name>       a snapshot
//
// Ids go in as they are: a project id or a Pub/Sub name cannot hold '/',
// '?', '#' or '%'.

// The collections of a project's objects, as URIs name them.
const (
	partTopics        = "topics"
	partSubscriptions = "subscriptions"
	partSnapshots     = "snapshots"
)

func objectURI(project, collection, name string) string {
	return "pubsub://" + project + "/" + collection + "/" + name
}

// PubSubObject is a topic, subscription or snapshot, read from its URI.
type PubSubObject struct {
	Project      string
	Subscription bool // else a topic, unless Snapshot
	Snapshot     bool
	Name         string
}

// ParsePubSub reads a Pub/Sub artifact.
func ParsePubSub(a *model.Artifact) (PubSubObject, bool) {
	segs, ok := model.RawURISegments(a.URI, "pubsub")
	if !ok || len(segs) != 3 || segs[0] == "" || segs[2] == "" {
		return PubSubObject{}, false
	}
	switch segs[1] {
	case partSubscriptions:
		return PubSubObject{Project: segs[0], Subscription: true, Name: segs[2]}, true
	case partTopics:
		return PubSubObject{Project: segs[0], Name: segs[2]}, true
	case partSnapshots:
		return PubSubObject{Project: segs[0], Snapshot: true, Name: segs[2]}, true
	}
	return PubSubObject{}, false
}

// collection is the part of the URI, and of the object's full name in the
// API (projects/<project>/<collection>/<name>), that says what it is.
func (o PubSubObject) collection() string {
	switch {
	case o.Subscription:
		return partSubscriptions
	case o.Snapshot:
		return partSnapshots
	}
	return partTopics
}
