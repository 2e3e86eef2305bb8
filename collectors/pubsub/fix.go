package pubsub

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// pubsubSystem acts on a Pub/Sub source with the client the collector
// uses (Application Default Credentials, the source's endpoint;
// PUBSUB_EMULATOR_HOST is honoured by the client).
type pubsubSystem struct {
	project string
	opts    []option.ClientOption

	once   sync.Once
	client *pubsub.Client
	err    error
}

// newPubSub acts with the source's endpoint and the client options it was
// given (a test's); it builds its own client when first used.
func newPubSub(c *Collector) (*pubsubSystem, error) {
	var opts []option.ClientOption
	if c.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(c.Endpoint))
	}
	project := ""
	if len(c.Projects) > 0 {
		project = c.Projects[0]
	}
	return &pubsubSystem{project: project, opts: append(opts, c.clientOptions...)}, nil
}

// admin builds the client on first use: a plan that never acts on Pub/Sub
// never dials it.
func (s *pubsubSystem) admin(ctx context.Context) (*pubsub.Client, error) {
	s.once.Do(func() {
		// The project only seeds the client; every request names its own.
		s.client, s.err = pubsub.NewClient(context.WithoutCancel(ctx), s.project, s.opts...)
		if s.err != nil {
			s.err = fmt.Errorf("pubsub: client (Application Default Credentials): %w", s.err)
		}
	})
	return s.client, s.err
}

// Close releases the client.
func (s *pubsubSystem) Close() error {
	if s.client != nil {
		return s.client.Close()
	}
	return nil
}

func (s *pubsubSystem) object(a *model.Artifact) (PubSubObject, string, error) {
	o, ok := ParsePubSub(a)
	if !ok {
		return o, "", fmt.Errorf("pubsub: %s is not an artifact bfaudit can act on", a.URI)
	}
	return o, "projects/" + o.Project + "/" + o.collection() + "/" + o.Name, nil
}

func (s *pubsubSystem) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	o, name, err := s.object(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	c, err := s.admin(ctx)
	if err != nil {
		return remedy.Observed{}, err
	}
	if o.Snapshot {
		snap, err := c.SubscriptionAdminClient.GetSnapshot(ctx, &pubsubpb.GetSnapshotRequest{Snapshot: name})
		if status.Code(err) == codes.NotFound {
			return remedy.Observed{}, nil
		}
		if err != nil {
			return remedy.Observed{}, fmt.Errorf("pubsub: get snapshot %s: %w", name, err)
		}
		return remedy.Observed{Found: true, State: map[string]string{AttrTopic: snap.GetTopic()}}, nil
	}
	if !o.Subscription {
		_, err := c.TopicAdminClient.GetTopic(ctx, &pubsubpb.GetTopicRequest{Topic: name})
		if status.Code(err) == codes.NotFound {
			return remedy.Observed{}, nil
		}
		if err != nil {
			return remedy.Observed{}, fmt.Errorf("pubsub: get topic %s: %w", name, err)
		}
		return remedy.Observed{Found: true, State: map[string]string{}}, nil
	}
	sub, err := c.SubscriptionAdminClient.GetSubscription(ctx, &pubsubpb.GetSubscriptionRequest{Subscription: name})
	if status.Code(err) == codes.NotFound {
		return remedy.Observed{}, nil
	}
	if err != nil {
		return remedy.Observed{}, fmt.Errorf("pubsub: get subscription %s: %w", name, err)
	}
	return remedy.Observed{Found: true, State: map[string]string{
		AttrTopic:          sub.GetTopic(),
		model.AttrDetached: strconv.FormatBool(sub.GetDetached()),
	}}, nil
}

// Expected: the subscription is still on the topic it was on, attached
// or detached as it was; the snapshot still holds the topic it held.
func (s *pubsubSystem) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return remedy.Saw(a, AttrTopic, model.AttrDetached)
}

func (s *pubsubSystem) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	o, name, err := s.object(a)
	if err != nil {
		return err
	}
	c, err := s.admin(ctx)
	if err != nil {
		return err
	}
	switch {
	case o.Subscription && act.Name == remedy.DeleteSubscription:
		err = c.SubscriptionAdminClient.DeleteSubscription(ctx, &pubsubpb.DeleteSubscriptionRequest{Subscription: name})
	case o.Snapshot && act.Name == remedy.DeleteSnapshot:
		err = c.SubscriptionAdminClient.DeleteSnapshot(ctx, &pubsubpb.DeleteSnapshotRequest{Snapshot: name})
	case !o.Subscription && !o.Snapshot && act.Name == remedy.DeleteTopic:
		err = c.TopicAdminClient.DeleteTopic(ctx, &pubsubpb.DeleteTopicRequest{Topic: name})
	default:
		return fmt.Errorf("pubsub: no %s for %s", act.Name, name)
	}
	if status.Code(err) == codes.NotFound {
		return nil // gone in between: done either way
	}
	if err != nil {
		return fmt.Errorf("pubsub: %s %s: %w", act.Name, name, err)
	}
	return nil
}
