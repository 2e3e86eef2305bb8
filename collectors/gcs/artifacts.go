package gcs

import (
	"strconv"
	"time"

	"github.com/bfaudit/bfaudit/model"
	storage "google.golang.org/api/storage/v1"
)

// group ties the objects listed under prefix and folds them into one
// artifact per checkpoint folder (see correlate's Selector.Folder), in listing order. A
// folder whose objects carry different backfill ids is tied to the first
// object's.
func (c *Collector) group(bucket, prefix string, battrs *storage.Bucket, objs []*storage.Object) []model.Artifact {
	var out []model.Artifact
	at := map[string]int{}
	var period time.Duration
	locked := false
	if rp := battrs.RetentionPolicy; rp != nil {
		period, locked = time.Duration(rp.RetentionPeriod)*time.Second, rp.IsLocked
	}
	for _, o := range objs {
		if o == nil || o.Name == "" {
			continue
		}
		folder, _ := c.sel.Folder(prefix, o.Name)
		uri := FolderURI(c.source, bucket, folder)
		i, seen := at[folder]
		if !seen {
			id, how, ok := c.sel.Match(uri, o.Name, o.Metadata)
			if !ok {
				if id, ok = c.sel.FromLabels(battrs.Labels); ok {
					how = "label"
				}
			}
			if !ok {
				continue
			}
			a := model.Artifact{
				Kind: model.KindCheckpoint, System: "gcs", Scope: PrefixScope(bucket, prefix), URI: uri,
				Name: GCSObject{bucket, folder}.URL(), BackfillID: id, Correlation: how, State: model.StateActive,
			}
			a.SetAttr(model.AttrCheckpointType, "object")
			out = append(out, a)
			i = len(out) - 1
			at[folder] = i
		}
		a := &out[i]
		n, _ := strconv.ParseInt(a.Attr(model.AttrObjects), 10, 64)
		size, _ := strconv.ParseInt(a.Attr(model.AttrBytes), 10, 64)
		a.SetAttr(model.AttrObjects, strconv.FormatInt(n+1, 10))
		a.SetAttr(model.AttrBytes, strconv.FormatInt(size+int64(o.Size), 10))
		if updated := rfc3339(o.Updated); updated.After(a.ModifiedAt.Time()) {
			a.ModifiedAt = model.At(updated)
		}
		if r := o.Retention; r != nil {
			if until := rfc3339(r.RetainUntilTime); until.After(a.ExpiresAt.Time()) {
				a.ExpiresAt = model.At(until)
			}
		}
		if created := rfc3339(o.TimeCreated); period > 0 && !created.IsZero() {
			if end := created.Add(period); end.After(a.ExpiresAt.Time()) {
				a.ExpiresAt = model.At(end.UTC())
			}
		}
		if o.EventBasedHold || o.TemporaryHold || locked {
			a.SetAttr(model.AttrHolds, "true")
		}
	}
	return out
}

// rfc3339 reads a time of the JSON API, in UTC; an empty or unreadable
// one is the zero time, on which nothing is judged.
func rfc3339(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
