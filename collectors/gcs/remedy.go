package gcs

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("gcs", remedy.System{Remove: gcsRemoval, Infer: inferGCS,
		Acts: remedy.ActsOn(func(c *Collector) (remedy.Actor, error) {
			return newGCS(c), nil
		})})
}

// GCSObject is a checkpoint folder (Path ends with '/') or a single
// object in a bucket, from the gcs collector's URIs:
// gcs://<source>/<bucket>/<path>, each path component escaped.
type GCSObject struct {
	Bucket string
	Path   string
}

// Folder reports whether the object is a folder (every object under it).
func (o GCSObject) Folder() bool { return strings.HasSuffix(o.Path, "/") }

// URL is the gs:// address gcloud takes.
func (o GCSObject) URL() string { return "gs://" + o.Bucket + "/" + o.Path }

// ParseGCS reads a gcs artifact's bucket and path.
func ParseGCS(a *model.Artifact) (GCSObject, bool) {
	segs, ok := model.URISegments(a.URI, "gcs")
	if !ok || len(segs) < 2 || segs[0] == "" {
		return GCSObject{}, false
	}
	o := GCSObject{Bucket: segs[0], Path: strings.Join(segs[1:], "/")}
	if strings.Trim(o.Path, "/") == "" {
		return GCSObject{}, false // never the whole bucket
	}
	return o, true
}

func gcsRemoval(r *remedy.Remedy, a *model.Artifact) {
	o, ok := ParseGCS(a)
	if !ok {
		return
	}
	words := []string{"gcloud", "storage", "rm"}
	what := "delete object " + o.URL()
	if o.Folder() {
		words = append(words, "--recursive")
		what = "delete every object under " + o.URL()
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteObjects, Step: model.StepRetired, Resolves: true,
		Summary: what + " (checkpoint state)", Shell: remedy.Command(words, nil, o.URL())})
	r.Notes = append(r.Notes, "record the final processed range and the replay id in the decision record's checkpoint (checkpoint: {final_range, replay_id, location}) first: "+
		"the checkpoint is the only trace of where the replay stopped")
	if a.Attr(model.AttrHolds) == "true" {
		r.Notes = append(r.Notes, "objects under a hold (event-based or temporary) or a locked retention policy cannot be deleted until the hold is released or the retention ends")
	}
	if strings.ContainsAny(o.Path, "*?[]") {
		r.Notes = append(r.Notes, "the path holds wildcard characters (* ? [ ]) that gcloud storage expands: check what it matches before running it")
	}
}

// inferGCS: the URI names the bucket and folder of a checkpoint.
func inferGCS(a *model.Artifact) {
	if o, ok := ParseGCS(a); ok {
		a.Kind, a.Name = model.KindCheckpoint, o.URL()
		if a.Attr(model.AttrCheckpointType) == "" {
			a.SetAttr(model.AttrCheckpointType, "object")
		}
	}
}
