package s3

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of an S3 folder, beside the model's.
const (
	AttrAccount     = "account"      // the account that reads the bucket
	AttrRegion      = "region"       // the bucket's region
	AttrLockMode    = "object_lock"  // the bucket's default retention mode (GOVERNANCE, COMPLIANCE), "enabled" without one
	AttrRetainUntil = "retain_until" // RFC 3339: the default retention of the last object written ends
)

// checkpointDir is a path component that names checkpoint state: Flink's
// and Spark's checkpoint and savepoint folders (checkpoints/, _checkpoint/,
// savepoint-1a2b/, chk-17/).
var checkpointDir = regexp.MustCompile(`(?i)checkpoint|savepoint|^chk-\d+$`)

// kindOf is what a folder holds, read from its path alone (so a finding's
// URI gives the same kind as the collector): checkpoint state when a
// component of the path names a checkpoint (BF020, BF021: its range goes
// into the decision record before it is deleted), else a backfill's
// temporary data (tmp/, scratch/, a folder named for the backfill), which
// BF005 judges as it judges a temporary table: the files of one are what
// such a folder holds.
func kindOf(path string) model.Kind {
	for _, comp := range strings.Split(path, "/") {
		if checkpointDir.MatchString(comp) {
			return model.KindCheckpoint
		}
	}
	return model.KindTable
}

// setKind gives a an S3 folder's kind and the attribute its rules read.
func setKind(a *model.Artifact, path string) {
	a.Kind = kindOf(path)
	if a.Kind == model.KindCheckpoint {
		a.SetAttr(model.AttrCheckpointType, "object")
	} else {
		a.SetAttr(model.AttrTemporary, "true")
	}
}

// folder is one folder of a backfill and the objects listed in it.
type folder struct {
	a    model.Artifact
	objs []types.Object
}

// group ties the objects listed under prefix and folds them into one
// artifact per folder (correlate's Selector.Folder), in listing order.
func (c *Collector) group(b *bucketInfo, prefix string, objs []types.Object) []model.Artifact {
	var folders []*folder
	at := map[string]*folder{}
	for _, o := range objs {
		key := aws.ToString(o.Key)
		if key == "" {
			continue
		}
		path, byPath := c.env.Selector.Folder(prefix, key)
		f, seen := at[path]
		if !seen {
			if f = c.tie(b, prefix, path, byPath); f != nil {
				folders = append(folders, f)
			}
			at[path] = f
		}
		if f != nil {
			f.objs = append(f.objs, o)
		}
	}
	out := make([]model.Artifact, len(folders))
	for i, f := range folders {
		out[i] = c.fill(b, f)
	}
	return out
}

// tie makes the artifact of a folder when a backfill claims it: a plan
// lists its URI, its path names the backfill, or else the bucket's tags
// do; nil when nothing does.
func (c *Collector) tie(b *bucketInfo, prefix, path string, byPath bool) *folder {
	sel := c.env.Selector
	uri := FolderURI(c.source, b.account, b.region, b.name, path)
	id, how, ok := sel.Match(uri, "", nil)
	if !ok && byPath {
		comps := strings.Split(strings.TrimSuffix(path, "/"), "/")
		id, ok = sel.FromName(comps[len(comps)-1])
		how = "name"
		if strings.HasSuffix(path, "/") {
			how = "folder"
		}
	}
	if !ok {
		id, ok = sel.FromLabels(b.tags)
		how = "label"
	}
	if !ok {
		return nil
	}
	a := model.Artifact{System: "s3", Scope: PrefixScope(b.account, b.name, prefix), URI: uri,
		Name: S3Object{Bucket: b.name, Path: path}.URL(), BackfillID: id, Correlation: how, State: model.StateActive}
	setKind(&a, path)
	a.SetAttr(AttrAccount, b.account)
	a.SetAttr(AttrRegion, b.region)
	if c.Endpoint != "" {
		a.SetAttr(model.AttrAPIURL, redact.URL(c.Endpoint))
	}
	return &folder{a: a}
}

// fill sums a folder's objects: count, size, latest write, when the
// lifecycle rules expire it, and the bucket's object lock.
func (c *Collector) fill(b *bucketInfo, f *folder) model.Artifact {
	a := f.a
	var size int64
	for _, o := range f.objs {
		size += aws.ToInt64(o.Size)
		if t := aws.ToTime(o.LastModified); t.After(a.ModifiedAt.Time()) {
			a.ModifiedAt = model.At(t.UTC())
		}
	}
	a.SetAttr(model.AttrObjects, strconv.Itoa(len(f.objs)))
	a.SetAttr(model.AttrBytes, strconv.FormatInt(size, 10))
	a.ExpiresAt = model.At(expiry(b.rules, f.objs))
	if b.lock != nil {
		// Objects under lock may be retained or on legal hold: nothing
		// deletes them while it lasts, a lifecycle rule included.
		a.SetAttr(model.AttrHolds, "true")
		a.SetAttr(AttrLockMode, "enabled")
		if mode, until, ok := retention(b.lock, a.ModifiedAt.Time()); ok {
			a.SetAttr(AttrLockMode, mode)
			a.SetAttr(AttrRetainUntil, until.Format(time.RFC3339))
		}
	}
	return a
}
