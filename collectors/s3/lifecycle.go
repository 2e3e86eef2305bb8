package s3

import (
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// expiry is when the bucket's lifecycle rules will have removed every
// object of objs: each object goes at the earliest expiration of the
// enabled rules that cover it, so the folder is gone at the latest of
// those. Zero when some object is expired by no rule (or by a rule that
// filters on object tags, which a listing does not show).
func expiry(rules []types.LifecycleRule, objs []types.Object) time.Time {
	var last time.Time
	for _, o := range objs {
		var first time.Time
		for _, r := range rules {
			if t, ok := expiresAt(r, o); ok && (first.IsZero() || t.Before(first)) {
				first = t
			}
		}
		if first.IsZero() {
			return time.Time{}
		}
		if first.After(last) {
			last = first
		}
	}
	return last
}

// expiresAt is when rule r expires object o. S3 counts Days from the
// object's creation (its last write, for a listing) and rounds up to the
// next midnight UTC; a Date expires every object written before it on
// that date, and one written after it at the next midnight.
func expiresAt(r types.LifecycleRule, o types.Object) (time.Time, bool) {
	if r.Status != types.ExpirationStatusEnabled || r.Expiration == nil || !covers(r, o) {
		return time.Time{}, false
	}
	written := aws.ToTime(o.LastModified).UTC()
	switch e := r.Expiration; {
	case aws.ToInt32(e.Days) > 0:
		return nextMidnight(written.AddDate(0, 0, int(*e.Days))), true
	case e.Date != nil:
		if d := e.Date.UTC(); d.After(written) {
			return d, true
		}
		return nextMidnight(written), true
	}
	return time.Time{}, false
}

// covers reports whether rule r applies to object o: its prefix (the
// filter's, or the rule's own older Prefix) and size bounds match, and it
// does not filter on tags.
func covers(r types.LifecycleRule, o types.Object) bool {
	// Deprecated for new rules, but S3 still answers the rules written
	// with it, and what it says still decides what they expire.
	//lint:ignore SA1019 rules written before Filter still carry their prefix here
	prefix := aws.ToString(r.Prefix)
	var above, below *int64
	if f := r.Filter; f != nil {
		if f.Tag != nil || (f.And != nil && len(f.And.Tags) > 0) {
			return false
		}
		if f.Prefix != nil {
			prefix = *f.Prefix
		}
		above, below = f.ObjectSizeGreaterThan, f.ObjectSizeLessThan
		if a := f.And; a != nil {
			if a.Prefix != nil {
				prefix = *a.Prefix
			}
			if a.ObjectSizeGreaterThan != nil {
				above = a.ObjectSizeGreaterThan
			}
			if a.ObjectSizeLessThan != nil {
				below = a.ObjectSizeLessThan
			}
		}
	}
	size := aws.ToInt64(o.Size)
	return strings.HasPrefix(aws.ToString(o.Key), prefix) &&
		(above == nil || size > *above) && (below == nil || size < *below)
}

// nextMidnight is t rounded up to a midnight UTC.
func nextMidnight(t time.Time) time.Time {
	day := t.Truncate(24 * time.Hour)
	if day.Equal(t) {
		return t
	}
	return day.Add(24 * time.Hour)
}
