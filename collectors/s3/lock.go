package s3

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
)

// readLock reads a bucket's object lock: nil when it is not enabled.
func readLock(ctx context.Context, client *s3.Client, bucket string, timeout time.Duration) (*types.ObjectLockConfiguration, error) {
	out, err := awsconf.Call(ctx, timeout, func(ctx context.Context) (*s3.GetObjectLockConfigurationOutput, error) {
		return client.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: &bucket})
	})
	switch {
	case awsconf.Code(err) == noLock:
		return nil, nil
	case err != nil:
		return nil, err
	case out.ObjectLockConfiguration == nil:
		return nil, notS3("GetObjectLockConfiguration", "no ObjectLockConfiguration")
	case out.ObjectLockConfiguration.ObjectLockEnabled != types.ObjectLockEnabledEnabled:
		return nil, nil
	}
	return out.ObjectLockConfiguration, nil
}

// retention is a bucket's default retention: its mode and the end of the
// retention of an object written at written. ok is false when the bucket
// has no default retention (each object may still carry its own, which
// only a call per object reads).
func retention(lock *types.ObjectLockConfiguration, written time.Time) (mode string, until time.Time, ok bool) {
	if lock == nil || lock.Rule == nil || lock.Rule.DefaultRetention == nil {
		return "", time.Time{}, false
	}
	d := lock.Rule.DefaultRetention
	years, days := int(aws.ToInt32(d.Years)), int(aws.ToInt32(d.Days))
	if years <= 0 && days <= 0 {
		return "", time.Time{}, false
	}
	return string(d.Mode), written.UTC().AddDate(years, 0, days), true
}

// lockRefusal says why the objects of a folder, the last written at
// newest, may not be deleted at now: the bucket's object lock retains
// them until a date still ahead, or retains each object for a time only
// a call per object would read. "" when nothing holds them.
func lockRefusal(lock *types.ObjectLockConfiguration, newest, now time.Time) string {
	if lock == nil {
		return ""
	}
	mode, until, ok := retention(lock, newest)
	switch {
	case !ok:
		return "the bucket has object lock enabled and no default retention: each object's own retention and legal hold are unknown; check them (aws s3api get-object-retention, get-object-legal-hold) and delete by hand"
	case until.After(now):
		return fmt.Sprintf("the bucket's object lock (%s) retains its objects until %s: they cannot be deleted before", mode, until.Format(time.RFC3339))
	}
	return ""
}
