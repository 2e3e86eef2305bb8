package s3

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/bfaudit/bfaudit/collectors/awssource"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/internal/redact"
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

// readBucket reads a bucket's region (see bucketRegion), then, in it, its tags, lifecycle rules and object
// lock. Any other failure than "the bucket has none" fails the bucket:
// its tags tie objects and its rules say what expires by itself.
func (c *Collector) readBucket(ctx context.Context, account, name string) (*bucketInfo, error) {
	t, err := c.accounts.Target(ctx, c.base, c.Settings, account)
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
	region, err := c.bucketRegion(ctx, t, name)
	if err != nil {
		return fail(err)
	}
	b := &bucketInfo{account: account, name: name, region: region}
	b.client = c.client(t, b.region)
	tags, err := awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*s3.GetBucketTaggingOutput, error) {
		return b.client.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: &name})
	})
	switch {
	case err == nil && tags.TagSet == nil:
		// S3 answers NoSuchTagSet rather than an empty set.
		return fail(notS3("GetBucketTagging", "no TagSet"))
	case err == nil:
		b.tags = awssource.Tags(tags.TagSet, func(t types.Tag) (*string, *string) { return t.Key, t.Value })
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

// bucketRegion asks S3 where a bucket is: HeadBucket, in the first
// configured region. S3 names the bucket's region in a header of its
// answer, also when it refuses the request because the bucket is in
// another region (301, or 400 in the regions opened since 2019); unlike
// GetBucketLocation, which a bucket's policy governs only in its own
// region. A server that names none (some S3-compatible ones) serves the
// bucket in the first configured region.
func (c *Collector) bucketRegion(ctx context.Context, t awsconf.Target, name string) (string, error) {
	out, err := awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*s3.HeadBucketOutput, error) {
		return c.client(t, c.Regions[0]).HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &name})
	})
	region := ""
	var re *awshttp.ResponseError
	switch {
	case err == nil:
		region = cmp.Or(aws.ToString(out.BucketRegion), c.Regions[0])
	case errors.As(err, &re) && (re.HTTPStatusCode() == http.StatusMovedPermanently || re.HTTPStatusCode() == http.StatusBadRequest):
		if region = re.Response.Header.Get("X-Amz-Bucket-Region"); region == "" {
			return "", err
		}
	default:
		return "", err
	}
	if !regionName().MatchString(region) {
		return "", notS3("HeadBucket", fmt.Sprintf("the bucket's region %q", redact.Line(region, 40)))
	}
	return region, nil
}

// regionName is what a region's name is made of.
var regionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]{1,40}$`) })
