package s3

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// listObjects reads every object under prefix with ListObjectsV2, 1000 a
// page, each page one call under timeout, checked by a remote.Pager (a
// token that repeats, a page of objects listed before). More than max
// objects is an error: a folder cut off would look smaller or older than
// it is. A listing stopped by a bound returns the objects listed until
// then with its error, for the caller to count as read in part.
func listObjects(ctx context.Context, client *s3.Client, bucket, prefix string, max int, timeout time.Duration) ([]types.Object, error) {
	pager := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix},
		func(o *s3.ListObjectsV2PaginatorOptions) { o.Limit = pageSize })
	next := func(ctx context.Context) (*s3.ListObjectsV2Output, error) { return pager.NextPage(ctx) }
	// The callers' errors name the bucket and prefix.
	pages := remote.Pager{What: "S3 ListObjectsV2", Max: max/pageSize + 2, MaxKey: "max_objects"}
	var all []types.Object
	err := awsconf.Pages(ctx, timeout, pager.HasMorePages, next, func(page *s3.ListObjectsV2Output) error {
		if aws.ToString(page.Name) != bucket {
			// S3 names the bucket listed in every page.
			return notS3("ListObjectsV2", "no bucket named")
		}
		token := ""
		if aws.ToBool(page.IsTruncated) {
			// The paginator would stop here: a listing that says there is
			// more and gives no way to it is not a complete one.
			if token = aws.ToString(page.NextContinuationToken); token == "" {
				return notS3("ListObjectsV2", "a truncated page without a continuation token")
			}
		}
		keys := make([]string, len(page.Contents))
		for i, o := range page.Contents {
			keys[i] = aws.ToString(o.Key)
		}
		if err := pages.Next(token, keys...); err != nil {
			return err
		}
		all = append(all, page.Contents...)
		if len(all) > max {
			return fmt.Errorf("more than %d objects (max_objects): raise max_objects or list narrower prefixes", max)
		}
		return nil
	})
	return all, err
}
