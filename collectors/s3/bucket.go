package s3

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
)

// The error codes S3 answers for a bucket without tags, lifecycle rules
// or object lock: the bucket simply has none.
const (
	noTags      = "NoSuchTagSet"
	noLifecycle = "NoSuchLifecycleConfiguration"
	noLock      = "ObjectLockConfigurationNotFoundError"
)

// bucketInfo is what a bucket says of every object in it.
type bucketInfo struct {
	account, name, region string
	client                *s3.Client
	tags                  map[string]string
	rules                 []types.LifecycleRule
	lock                  *types.ObjectLockConfiguration // nil: object lock is not enabled
}

// readBucket reads a bucket's region (asked in the first configured
// region), then, in its own region, its tags, lifecycle rules and object
// lock. Any other failure than "the bucket has none" fails the bucket:
// its tags tie objects and its rules say what expires by itself.
func (c *Collector) readBucket(ctx context.Context, account, name string) (*bucketInfo, error) {
	t, err := c.target(ctx, account)
	if err != nil {
		return nil, fmt.Errorf("s3: bucket %s: %w", name, err)
	}
	fail := func(err error) (*bucketInfo, error) {
		via := ""
		if t.Role != "" {
			via = " through role " + t.Role
		}
		return nil, fmt.Errorf("s3: read bucket %s (account %s%s): %w", name, account, via, err)
	}
	loc, err := awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*s3.GetBucketLocationOutput, error) {
		return c.client(t, c.Regions[0]).GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: &name})
	})
	if err != nil {
		return fail(err)
	}
	b := &bucketInfo{account: account, name: name, region: regionOf(loc.LocationConstraint)}
	b.client = c.client(t, b.region)
	tags, err := awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*s3.GetBucketTaggingOutput, error) {
		return b.client.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: &name})
	})
	switch {
	case err == nil && tags.TagSet == nil:
		// S3 answers NoSuchTagSet rather than an empty set.
		return fail(notS3("GetBucketTagging", "no TagSet"))
	case err == nil:
		b.tags = make(map[string]string, len(tags.TagSet))
		for _, tag := range tags.TagSet {
			b.tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
		}
	case awsconf.Code(err) != noTags:
		return fail(err)
	}
	lc, err := awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*s3.GetBucketLifecycleConfigurationOutput, error) {
		return b.client.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: &name})
	})
	switch {
	case err == nil && lc.Rules == nil:
		// S3 answers NoSuchLifecycleConfiguration rather than no rule.
		return fail(notS3("GetBucketLifecycleConfiguration", "no Rule"))
	case err == nil:
		b.rules = lc.Rules
	case awsconf.Code(err) != noLifecycle:
		return fail(err)
	}
	b.lock, err = readLock(ctx, b.client, name, c.Timeout)
	if err != nil {
		return fail(err)
	}
	return b, nil
}

// notS3 is the error of an answer S3 never gives (a proxy's page, another
// server's answer): an answer that held nothing must not read as "none".
func notS3(op, why string) error {
	return fmt.Errorf("S3 %s: not S3's answer (%s)", op, why)
}

// regionOf is the region a bucket's location constraint names: none is
// us-east-1, and the oldest European buckets answer EU.
func regionOf(loc types.BucketLocationConstraint) string {
	switch loc {
	case "":
		return "us-east-1"
	case types.BucketLocationConstraintEu:
		return "eu-west-1"
	}
	return string(loc)
}
