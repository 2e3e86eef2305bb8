// Package pubsub collects the Pub/Sub topics, subscriptions and snapshots
// a backfill left behind: a retry topic, a replay subscription still
// attached to a production topic after the replay finished
// (docs/practice.md, "Inventory the machinery"; rule
// BF006), the snapshot a replay's seek was made from (a checkpoint that
// keeps the topic's messages until it expires).
package pubsub

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"cloud.google.com/go/pubsub/v2"
	vkit "cloud.google.com/go/pubsub/v2/apiv1"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	gax "github.com/googleapis/gax-go/v2"
	"google.golang.org/api/option"
)

//go:embed sample.yaml
var sampleConfig string

func init() {
	collectors.Register("pubsub", func() collectors.Collector { return &Collector{Timeout: remote.DefaultCallTimeout} }, sampleConfig)
}

// maxPageSize is the page size asked of the list calls; the service may
// answer with fewer.
const maxPageSize = 1000

// topicAdmin and subscriptionAdmin are the two admin calls used, so the
// collector depends on no more of the client than it needs.
type topicAdmin interface {
	ListTopics(ctx context.Context, req *pubsubpb.ListTopicsRequest, opts ...gax.CallOption) *vkit.TopicIterator
}

type subscriptionAdmin interface {
	ListSubscriptions(ctx context.Context, req *pubsubpb.ListSubscriptionsRequest, opts ...gax.CallOption) *vkit.SubscriptionIterator
}

type snapshotAdmin interface {
	ListSnapshots(ctx context.Context, req *pubsubpb.ListSnapshotsRequest, opts ...gax.CallOption) *vkit.SnapshotIterator
}

// Collector lists topics, subscriptions and snapshots of the configured
// projects.
type Collector struct {
	// Projects are the project ids whose topics, subscriptions and
	// snapshots are listed. Credentials: Application Default Credentials.
	Projects []string `mapstructure:"projects"`
	// Endpoint overrides the service address (host:port), e.g. a private
	// endpoint; PUBSUB_EMULATOR_HOST is also honoured by the client.
	Endpoint string `mapstructure:"endpoint"`
	// Timeout bounds each call (one page of a listing); a call that runs
	// out is not retried.
	Timeout time.Duration `mapstructure:"timeout"`

	topics   topicAdmin
	subs     subscriptionAdmin
	snaps    snapshotAdmin
	client   *pubsub.Client
	sel      *correlate.Selector // env.Selector, from Init
	retry    remote.RetryPolicy
	pageSize int32
	// maxPages bounds one listing's pages; 0 is remote.DefaultMaxPages (tests lower it).
	maxPages int
	// clientOptions are added to the options Init builds the client with;
	// tests point it at pstest.
	clientOptions []option.ClientOption
}

// Init validates the config, keeps env's selector and builds the admin
// clients unless they were handed in.
func (c *Collector) Init(env collectors.Env) error {
	if err := gcp.CheckProjects(c.Projects, "topics and subscriptions"); err != nil {
		return err
	}
	if err := remote.CheckTimeout("timeout", c.Timeout); err != nil {
		return err
	}
	c.sel = env.Selector
	if c.pageSize <= 0 {
		c.pageSize = maxPageSize
	}
	if c.topics != nil && c.subs != nil && c.snaps != nil {
		return nil
	}
	var opts []option.ClientOption
	if c.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(c.Endpoint))
	}
	opts = append(opts, c.clientOptions...)
	// The project only seeds the client; every request names its own.
	client, err := pubsub.NewClient(context.Background(), c.Projects[0], opts...)
	if err != nil {
		return fmt.Errorf("pubsub: client (Application Default Credentials): %w", err)
	}
	c.client = client
	c.topics, c.subs, c.snaps = client.TopicAdminClient, client.SubscriptionAdminClient, client.SubscriptionAdminClient
	return nil
}

// Close releases the client's connections.
func (c *Collector) Close() error {
	if c.client == nil {
		return nil
	}
	return c.client.Close()
}

// Units are the configured projects.
func (c *Collector) Units(context.Context) ([]string, error) { return c.Projects, nil }

// CollectUnit lists one project (three paged calls carry every field
// used). Topics carry JoinScope(p, "topics"), subscriptions
// JoinScope(p, "subscriptions") and snapshots JoinScope(p, "snapshots"). A
// failed topic listing fails the project: subscriptions and snapshots are
// tied through their topics, so without the topics none is answered. A
// failed subscription or snapshot listing is recorded at its own scope,
// and the others stand.
func (c *Collector) CollectUnit(ctx context.Context, project string, sink collectors.Sink) error {
	return c.collectProject(ctx, project, sink)
}

// listingScope is the scope path of one of a project's three listings
// (partTopics, partSubscriptions, partSnapshots).
func listingScope(project, part string) string { return model.JoinScope(project, part) }

// collectProject returns the error that fails the whole project (the
// topics); a failed subscription or snapshot listing is recorded here.
func (c *Collector) collectProject(ctx context.Context, project string, sink collectors.Sink) error {
	topics, err := c.listTopics(ctx, project)
	if err != nil {
		return fmt.Errorf("pubsub: list topics of project %s: %w", project, err)
	}
	topicTies := map[string]tie{}
	for i, t := range topics {
		if lastSegment(t.GetName()) == "" {
			return fmt.Errorf("pubsub: list topics of project %s: entry %d has no name", project, i)
		}
		a, matched := c.topic(project, t)
		if !matched {
			continue
		}
		topicTies[t.GetName()] = tie{id: a.BackfillID, how: a.Correlation}
		sink.AddArtifact(a)
	}
	sink.AddRead(listingScope(project, partTopics), partTopics, len(topics), 0)
	subs, err := c.listSubscriptions(ctx, project)
	if err := addListed(ctx, sink, project, partSubscriptions, subs, err, func(s *pubsubpb.Subscription) (model.Artifact, bool) {
		return c.subscription(project, s, topicTies)
	}); err != nil {
		return err
	}
	snaps, err := c.listSnapshots(ctx, project)
	return addListed(ctx, sink, project, partSnapshots, snaps, err, func(s *pubsubpb.Snapshot) (model.Artifact, bool) {
		return c.snapshot(project, s, topicTies)
	})
}

// addListed reports a listing tied through the topics (subscriptions,
// snapshots): its failure at its own scope, where the others stand, else
// what it read and each entry tied to a backfill. It returns only ctx's
// error.
func addListed[T interface{ GetName() string }](ctx context.Context, sink collectors.Sink, project, part string, items []T, err error,
	tied func(T) (model.Artifact, bool)) error {
	scope := listingScope(project, part)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sink.AddError(scope, fmt.Errorf("pubsub: list %s of project %s: %w", part, project, err))
		return nil
	}
	sink.AddRead(scope, part, named(items), 0)
	for i, it := range items {
		if lastSegment(it.GetName()) == "" {
			sink.AddError(scope, fmt.Errorf("pubsub: list %s of project %s: entry %d has no name", part, project, i))
			continue
		}
		if a, matched := tied(it); matched {
			sink.AddArtifact(a)
		}
	}
	return nil
}

// named counts the entries of a listing that name an object (the others
// are malformed, an error at the listing's unit).
func named[T interface{ GetName() string }](items []T) int {
	n := 0
	for _, it := range items {
		if lastSegment(it.GetName()) != "" {
			n++
		}
	}
	return n
}
