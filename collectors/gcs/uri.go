package gcs

import (
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// A checkpoint's URI, built and read here only:
//
//	gcs://<source>/<bucket>/<path>    a folder (its path ends with '/') or a single object
//
// The source, the bucket and each component of the path are path-escaped.

// FolderURI is the artifact URI of a folder (or single object) of a bucket.
func FolderURI(source, bucket, folder string) string {
	return "gcs://" + url.PathEscape(source) + "/" + url.PathEscape(bucket) + "/" + model.EscapePath(folder)
}

// GCSObject is a checkpoint folder (Path ends with '/') or a single
// object in a bucket.
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
