package s3

import (
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// A folder's URI, built and read here only:
//
//	s3://<source>/<account>/<region>/<bucket>/<path>    a folder (its path ends with '/') or a single object
//
// The source, account, region, bucket and each component of the path are
// path-escaped. The account and region are the ones the bucket was read
// through: a fix acts with the same credentials, in the same region.

// FolderURI is the artifact URI of a folder (or single object) of a bucket.
func FolderURI(source, account, region, bucket, folder string) string {
	return "s3://" + url.PathEscape(source) + "/" + url.PathEscape(account) + "/" + url.PathEscape(region) + "/" +
		url.PathEscape(bucket) + "/" + model.EscapePath(folder)
}

// S3Object is a folder (Path ends with '/') or a single object of a
// bucket, and the account and region it was read through.
type S3Object struct {
	Account, Region, Bucket, Path string
}

// Folder reports whether the object is a folder (every object under it).
func (o S3Object) Folder() bool { return strings.HasSuffix(o.Path, "/") }

// URL is the s3:// address the aws CLI takes.
func (o S3Object) URL() string { return "s3://" + o.Bucket + "/" + o.Path }

// ParseS3 reads an s3 artifact's account, region, bucket and path. A URI
// naming a whole bucket is refused: nothing acts on one.
func ParseS3(a *model.Artifact) (S3Object, bool) {
	segs, ok := model.URISegments(a.URI, "s3")
	if !ok || len(segs) < 4 || segs[0] == "" || segs[1] == "" || segs[2] == "" {
		return S3Object{}, false
	}
	o := S3Object{Account: segs[0], Region: segs[1], Bucket: segs[2], Path: strings.Join(segs[3:], "/")}
	if strings.Trim(o.Path, "/") == "" {
		return S3Object{}, false
	}
	return o, true
}
