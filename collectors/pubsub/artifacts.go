package pubsub

import (
	"maps"
	"net/url"
	"strconv"
	"strings"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
	"google.golang.org/protobuf/types/known/durationpb"
)

// System-specific attributes.
const (
	AttrTopic            = "topic"             // full name of a subscription's or snapshot's topic
	AttrTopicDeleted     = "topic_deleted"     // "true" when the subscription's topic is gone
	AttrExpirationTTL    = "expiration_ttl"    // inactivity before Pub/Sub deletes the subscription; "never"
	AttrMessageRetention = "message_retention" // how long messages are kept
	AttrDelivery         = "delivery"          // pull, push, bigquery or cloud_storage
	AttrPushEndpoint     = "push_endpoint"     // push target, without its query
)

// deletedTopic is what Pub/Sub puts in a subscription whose topic was deleted.
const deletedTopic = "_deleted-topic_"

type tie struct{ id, how string }

// object is the artifact of a topic, subscription or snapshot (its kind
// and the part of its URI that says which), tied by its own labels,
// declared URI or name, or else, when topics is not nil, by its topic's
// tie.
func (c *Collector) object(o interface {
	GetName() string
	GetLabels() map[string]string
}, kind model.Kind, project, part, topic string, topics map[string]tie) (model.Artifact, bool) {
	short := lastSegment(o.GetName())
	uri := objectURI(project, part, short)
	id, how, ok := c.sel.Match(uri, short, o.GetLabels())
	if !ok && topics != nil {
		id, how, ok = topicTie(c, topic, topics)
	}
	if !ok {
		return model.Artifact{}, false
	}
	a := model.Artifact{
		Kind: kind, Scope: listingScope(project, part), URI: uri, Name: short,
		BackfillID: id, Correlation: how, Labels: model.TagsOf(copyLabels(o.GetLabels())), State: model.StateActive,
	}
	a.KeepFromLabels(o.GetLabels())
	return a, true
}

func (c *Collector) topic(project string, t *pubsubpb.Topic) (model.Artifact, bool) {
	a, ok := c.object(t, model.KindQueue, project, partTopics, "", nil)
	if !ok {
		return a, false
	}
	if d := t.GetMessageRetentionDuration(); d != nil {
		a.SetAttr(AttrMessageRetention, d.AsDuration().String())
	}
	return a, true
}

// subscription emits a subscription tied by its own labels, declared URI
// or name, or else by its topic's tie: a subscription on a backfill's
// topic is backfill machinery too.
func (c *Collector) subscription(project string, s *pubsubpb.Subscription, topics map[string]tie) (model.Artifact, bool) {
	a, ok := c.object(s, model.KindSubscription, project, partSubscriptions, s.GetTopic(), topics)
	if !ok {
		return a, false
	}
	a.SetAttr(model.AttrDetached, strconv.FormatBool(s.GetDetached()))
	a.SetAttr(AttrTopic, s.GetTopic())
	if s.GetTopic() == deletedTopic {
		a.SetAttr(AttrTopicDeleted, "true")
	}
	if ep := s.GetExpirationPolicy(); ep != nil {
		a.SetAttr(AttrExpirationTTL, ttl(ep.GetTtl()))
	}
	if d := s.GetMessageRetentionDuration(); d != nil {
		a.SetAttr(AttrMessageRetention, d.AsDuration().String())
	}
	delivery := "pull"
	switch {
	case s.GetPushConfig().GetPushEndpoint() != "":
		delivery = "push"
		a.SetAttr(AttrPushEndpoint, redactEndpoint(s.GetPushConfig().GetPushEndpoint()))
	case s.GetBigqueryConfig().GetTable() != "":
		delivery = "bigquery"
	case s.GetCloudStorageConfig().GetBucket() != "":
		delivery = "cloud_storage"
	}
	a.SetAttr(AttrDelivery, delivery)
	if delivery != "pull" && !s.GetDetached() {
		// Pub/Sub itself delivers to the push endpoint, table or bucket:
		// one consumer that stays as long as the subscription does. Pull
		// consumers are not visible in the admin API.
		a.SetAttr(model.AttrConsumers, "1")
	}
	return a, true
}

// snapshot emits a snapshot tied by its own labels, declared URI or name,
// or else by its topic's tie. A snapshot records its topic, not the
// subscription it was made from, so a snapshot of a replay subscription on
// a production topic is tied only by its own name or labels.
func (c *Collector) snapshot(project string, s *pubsubpb.Snapshot, topics map[string]tie) (model.Artifact, bool) {
	a, ok := c.object(s, model.KindCheckpoint, project, partSnapshots, s.GetTopic(), topics)
	if !ok {
		return a, false
	}
	a.SetAttr(model.AttrCheckpointType, "snapshot")
	a.SetAttr(AttrTopic, s.GetTopic())
	if s.GetExpireTime() != nil {
		a.ExpiresAt = model.At(s.GetExpireTime().AsTime())
	}
	return a, true
}

// topicTie is the tie of a backfill topic, by its full name: one listed
// here, or one in a project not listed here named for a backfill.
func topicTie(c *Collector, topic string, topics map[string]tie) (id, how string, ok bool) {
	if t, found := topics[topic]; found {
		return t.id, t.how, true
	}
	if tid, found := c.sel.FromName(lastSegment(topic)); found {
		return tid, "name", true
	}
	return "", "", false
}

// ttl renders an expiration policy's TTL; an empty TTL in a set policy
// means the subscription never expires.
func ttl(d *durationpb.Duration) string {
	if d == nil || d.AsDuration() == 0 {
		return "never"
	}
	return d.AsDuration().String()
}

// redactEndpoint shows a push endpoint as redact.URLOf does, and without
// its query at all: tokens are often passed there, under any name.
func redactEndpoint(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable endpoint)"
	}
	u.RawQuery = ""
	return redact.URLOf(u)
}

func copyLabels(in map[string]string) map[string]string {
	if len(in) == 0 {
		return nil
	}
	return maps.Clone(in)
}

func lastSegment(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}
