package s3

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// deleteBatch is the most keys one DeleteObjects call takes.
const deleteBatch = 1000

// actor deletes a folder's objects through the source's own settings:
// the account's credentials (its role) and the bucket's region, both from
// the artifact's URI.
type actor struct{ c *Collector }

// objects lists what the artifact covers now: every object under a
// folder, or the one object of a single-object artifact.
func (x actor) objects(ctx context.Context, a *model.Artifact) (*s3.Client, S3Object, []types.Object, error) {
	o, ok := ParseS3(a)
	if !ok {
		return nil, o, nil, fmt.Errorf("s3: %s is not an artifact bfaudit can act on", a.URI)
	}
	t, err := x.c.accounts.Target(ctx, x.c.base, x.c.Settings, o.Account)
	if err != nil {
		return nil, o, nil, fmt.Errorf("s3: %s: %w", o.URL(), err)
	}
	client := x.c.client(t, o.Region)
	objs, err := listObjects(ctx, client, o.Bucket, o.Path, x.c.MaxObjects, x.c.Timeout)
	if err != nil {
		return nil, o, nil, fmt.Errorf("s3: list %s: %w", o.URL(), err)
	}
	if !o.Folder() {
		var exact []types.Object
		for _, obj := range objs {
			if aws.ToString(obj.Key) == o.Path {
				exact = append(exact, obj)
			}
		}
		objs = exact
	}
	return client, o, objs, nil
}

// newest is the latest write of objs.
func newest(objs []types.Object) time.Time {
	var latest time.Time
	for _, o := range objs {
		if t := aws.ToTime(o.LastModified); t.After(latest) {
			latest = t
		}
	}
	return latest.UTC()
}

// Read lists the folder again: gone when it holds no object; else its
// object count and latest write.
func (x actor) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	_, _, objs, err := x.objects(ctx, a)
	if err != nil {
		return remedy.Observed{}, err
	}
	return remedy.FolderRead(len(objs), newest(objs)), nil
}

// Expected: the object count and latest write the audit saw.
func (x actor) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return remedy.FolderExpected(a)
}

// Act deletes the objects with DeleteObjects, up to 1000 a call, after
// reading the bucket's object lock again: objects it still retains are
// not touched (on a locked bucket a delete only hides them behind delete
// markers), and the refusal names the date. It stops at the first call
// or key that fails, saying how many objects were deleted before it.
func (x actor) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	if act.Name != remedy.DeleteObjects {
		return fmt.Errorf("s3: no %s for %s", act.Name, a.URI)
	}
	client, o, objs, err := x.objects(ctx, a)
	if err != nil || len(objs) == 0 {
		return err
	}
	lock, err := readLock(ctx, client, o.Bucket, x.c.Timeout)
	if err != nil {
		return fmt.Errorf("s3: read the object lock of bucket %s: %w", o.Bucket, err)
	}
	if why := lockRefusal(lock, newest(objs), x.c.now()); why != "" {
		return fmt.Errorf("s3: %s not deleted: %s", o.URL(), why)
	}
	deleted := 0
	for start := 0; start < len(objs); start += deleteBatch {
		batch := objs[start:min(start+deleteBatch, len(objs))]
		ids := make([]types.ObjectIdentifier, len(batch))
		for i, obj := range batch {
			ids[i] = types.ObjectIdentifier{Key: obj.Key}
		}
		out, err := awsconf.Call(ctx, x.c.Timeout, func(ctx context.Context) (*s3.DeleteObjectsOutput, error) {
			return client.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &o.Bucket, Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		})
		if err != nil {
			return fmt.Errorf("s3: deleted %d of %d objects under %s; stopped: %w", deleted, len(objs), o.URL(), err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			deleted += len(batch) - len(out.Errors)
			return fmt.Errorf("s3: deleted %d of %d objects under %s; stopped at s3://%s/%s: %s: %s", deleted, len(objs), o.URL(),
				o.Bucket, aws.ToString(e.Key), aws.ToString(e.Code), redact.Line(aws.ToString(e.Message), 200))
		}
		deleted += len(batch)
	}
	return nil
}
