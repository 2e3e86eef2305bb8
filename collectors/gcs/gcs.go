// Package gcs collects the checkpoint state backfills leave in Google
// Cloud Storage (Flink, Beam and Spark checkpoints and savepoints): one
// artifact per checkpoint folder, however many files it holds.
package gcs

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"google.golang.org/api/option"
	storage "google.golang.org/api/storage/v1"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults and bounds.
const (
	defaultMaxObjects = 100000
	pageSize          = 1000
)

func init() {
	collectors.Register("gcs", func() collectors.Collector {
		return &Collector{Timeout: remote.DefaultCallTimeout, MaxObjects: defaultMaxObjects}
	}, sampleConfig)
}

// Bucket is one bucket and the prefixes listed in it.
type Bucket struct {
	Name     string   `mapstructure:"name"`
	Prefixes []string `mapstructure:"prefixes"`
}

// Collector lists the objects under the configured prefixes of buckets.
type Collector struct {
	// Project is billed for requester-pays buckets (userProject); optional.
	// Credentials: Application Default Credentials.
	Project string   `mapstructure:"project"`
	Buckets []Bucket `mapstructure:"buckets"`
	// MaxObjects bounds the objects listed under one prefix; more is an
	// error at that prefix.
	MaxObjects int `mapstructure:"max_objects"`
	// Timeout bounds each call (one bucket read, one page of a listing).
	Timeout time.Duration `mapstructure:"timeout"`
	// Endpoint overrides the JSON API base URL; https://host is completed
	// to https://host/storage/v1/.
	Endpoint string `mapstructure:"endpoint"`

	// Client is the JSON API client; Init builds it unless a test hands
	// one in (NewClient with option.WithoutAuthentication for a fake).
	Client *storage.Service `mapstructure:"-"`

	// sel and source (the host part of URIs) come from Init's env.
	sel    *correlate.Selector
	source string
	retry  remote.RetryPolicy
	// clientOptions are added to the options Init builds the client with
	// (tests: no authentication, a token canary).
	clientOptions []option.ClientOption
}

// Init validates the config, keeps env's selector and source name (the
// host part of URIs; "gcs" when empty) and builds the client unless one
// was handed in.
func (c *Collector) Init(env collectors.Env) error {
	if len(c.Buckets) == 0 {
		return errors.New("buckets: missing; list the buckets (name and prefixes) that hold checkpoints")
	}
	for i, b := range c.Buckets {
		if strings.TrimSpace(b.Name) == "" || strings.ContainsAny(b.Name, "/ ") {
			return fmt.Errorf("buckets[%d].name: %q is not a bucket name (expected e.g. my-bucket, without gs://)", i, b.Name)
		}
		if err := collectors.CheckPrefixes(fmt.Sprintf("buckets[%d].prefixes", i), b.Prefixes); err != nil {
			return err
		}
	}
	if c.MaxObjects <= 0 {
		return fmt.Errorf("max_objects: %d; expected a positive bound (default %d)", c.MaxObjects, defaultMaxObjects)
	}
	if err := remote.CheckTimeout("timeout", c.Timeout); err != nil {
		return err
	}
	c.sel = env.Selector
	c.source = cmp.Or(env.Source, "gcs")
	if c.Client != nil {
		return nil
	}
	client, err := NewClient(context.Background(), c.Endpoint, storage.DevstorageReadOnlyScope, c.clientOptions...)
	if err != nil {
		return err
	}
	c.Client = client
	return nil
}

// NewClient builds the client the collector and fix use: the JSON API
// over gcp.HTTPClient (answers capped, calls logged), Application Default
// Credentials unless extra says otherwise. It is the API's generated
// client, which never retries (gcp.Call retries each call within the
// retry budget), not cloud.google.com/go/storage: that library's gRPC
// transport and its dependencies cost every run about 9 MB of memory
// before any bucket is read (bench/README.md), for calls this collector
// never makes.
func NewClient(ctx context.Context, endpoint, scope string, extra ...option.ClientOption) (*storage.Service, error) {
	opts, err := gcp.Endpoint("endpoint", endpoint, "/storage/v1/")
	if err != nil {
		return nil, err
	}
	hc, err := gcp.HTTPClient(ctx, append([]option.ClientOption{option.WithScopes(scope)}, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("gcs: HTTP client (Application Default Credentials): %w", err)
	}
	client, err := storage.NewService(ctx, append(opts, option.WithHTTPClient(hc))...)
	if err != nil {
		return nil, fmt.Errorf("gcs: client: %w", err)
	}
	return client, nil
}

// Units are the configured buckets (scope: the bucket's name). A bucket
// named in two entries is one unit: read once, the prefixes of both listed.
func (c *Collector) Units(context.Context) ([]string, error) {
	var units []string
	for _, b := range c.Buckets {
		if !slices.Contains(units, b.Name) {
			units = append(units, b.Name)
		}
	}
	return units, nil
}

// CollectUnit reads a bucket (its attributes: labels, retention policy),
// whose failure leaves its prefixes unread, then lists each of its
// prefixes (JoinScope(bucket, prefix)): a failed listing is recorded
// there while the other prefixes go on.
func (c *Collector) CollectUnit(ctx context.Context, bucket string, sink collectors.Sink) error {
	attrs, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*storage.Bucket, error) {
		call := c.Client.Buckets.Get(bucket).Fields("labels", "retentionPolicy").Context(ctx)
		if c.Project != "" {
			call = call.UserProject(c.Project)
		}
		return call.Do()
	})
	if err != nil {
		return fmt.Errorf("gcs: read bucket %s: %w", bucket, err)
	}
	sink.AddRead(bucket, "buckets", 1, 0)
	for _, b := range c.Buckets {
		if b.Name != bucket {
			continue
		}
		for _, p := range b.Prefixes {
			objs, err := c.list(ctx, bucket, p)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				sink.AddError(PrefixScope(bucket, p), fmt.Errorf("gcs: list gs://%s/%s: %w", bucket, p, err))
				if len(objs) > 0 {
					// Listed before a bound stopped the listing: read, but
					// only in part (none of them is judged).
					sink.AddRead(PrefixScope(bucket, p), "objects", len(objs), len(objs))
				}
				continue
			}
			sink.AddRead(PrefixScope(bucket, p), "objects", len(objs), 0)
			for _, a := range c.group(bucket, p, attrs, objs) {
				sink.AddArtifact(a)
			}
		}
	}
	return nil
}

// PrefixScope is the scope path of one prefix of a bucket.
func PrefixScope(bucket, prefix string) string { return model.JoinScope(bucket, prefix) }
