package gcs

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/api/option"
	storage "google.golang.org/api/storage/v1"

	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// gcsSystem deletes checkpoint objects with the JSON API client the
// collector lists them with (read-write scope, Application Default
// Credentials, the source's endpoint and billing project).
type gcsSystem struct {
	endpoint   string
	project    string
	maxObjects int
	timeout    time.Duration
	opts       []option.ClientOption

	once   sync.Once
	client *storage.Service
	err    error
}

// newGCS acts with the source's settings and the client options it was
// given (a test's); it builds its own read-write client when first used.
func newGCS(c *Collector) (*gcsSystem, error) {
	return &gcsSystem{endpoint: c.Endpoint, project: c.Project, maxObjects: c.MaxObjects, timeout: c.Timeout, opts: c.clientOptions}, nil
}

func (s *gcsSystem) storage(ctx context.Context) (*storage.Service, error) {
	s.once.Do(func() {
		s.client, s.err = NewClient(context.WithoutCancel(ctx), s.endpoint, storage.DevstorageReadWriteScope, s.opts...)
	})
	return s.client, s.err
}

// objects lists what the artifact covers now: every object under a
// folder, or the one object of a single-object artifact.
func (s *gcsSystem) objects(ctx context.Context, a *model.Artifact) (GCSObject, []*storage.Object, error) {
	o, ok := ParseGCS(a)
	if !ok {
		return o, nil, fmt.Errorf("gcs: %s is not an artifact bfaudit can act on", a.URI)
	}
	c, err := s.storage(ctx)
	if err != nil {
		return o, nil, err
	}
	objs, err := ListObjects(ctx, c, s.project, o.Bucket, o.Path, s.bound(), remote.RetryPolicy{}, s.callTimeout())
	if err != nil {
		return o, nil, fmt.Errorf("gcs: list %s: %w", o.URL(), err)
	}
	if !o.Folder() {
		var exact []*storage.Object
		for _, x := range objs {
			if x.Name == o.Path {
				exact = append(exact, x)
			}
		}
		objs = exact
	}
	return o, objs, nil
}

func (s *gcsSystem) bound() int {
	if s.maxObjects > 0 {
		return s.maxObjects
	}
	return 100000
}

func (s *gcsSystem) callTimeout() time.Duration {
	if s.timeout > 0 {
		return s.timeout
	}
	return remote.DefaultCallTimeout
}

// Read lists the folder again: gone when it holds no object; else its
// object count and latest update.
func (s *gcsSystem) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	_, objs, err := s.objects(ctx, a)
	if err != nil {
		return remedy.Observed{}, err
	}
	var latest time.Time
	for _, o := range objs {
		if updated := rfc3339(o.Updated); updated.After(latest) {
			latest = updated
		}
	}
	return remedy.FolderRead(len(objs), latest), nil
}

// Expected: the object count and latest update the audit saw.
func (s *gcsSystem) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return remedy.FolderExpected(a)
}

// Act deletes the objects one by one (at most max_objects), stopping at
// the first that fails (a held object, a denied delete) and saying how
// many were deleted before it.
func (s *gcsSystem) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	if act.Name != remedy.DeleteObjects {
		return fmt.Errorf("gcs: no %s for %s", act.Name, a.URI)
	}
	folder, objs, err := s.objects(ctx, a)
	if err != nil {
		return err
	}
	for i, o := range objs {
		_, err := gcp.Call(ctx, remote.RetryPolicy{}, s.callTimeout(), func(ctx context.Context) (struct{}, error) {
			call := s.client.Objects.Delete(folder.Bucket, o.Name).Context(ctx)
			if s.project != "" {
				call = call.UserProject(s.project)
			}
			return struct{}{}, call.Do()
		})
		if err != nil && !gcp.IsNotFound(err) {
			return fmt.Errorf("gcs: deleted %d of %d objects under %s; stopped at gs://%s/%s: %w", i, len(objs), a.Name, folder.Bucket, o.Name, err)
		}
	}
	return nil
}
