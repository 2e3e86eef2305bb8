package s3

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a folder's URI, and the commands, the fix
// action and the inference from a finding, read back to the same
// account, region, bucket and path whatever the object names and the
// source hold; a whole bucket is never read as a folder.
func TestFolderURIRoundTrip(t *testing.T) {
	names := remedytest.HostileNames
	for i, name := range names {
		other := names[(i+1)%len(names)]
		for _, path := range []string{"tmp/" + name + "/", name + "/" + other, "tmp/" + name, "a//b/"} {
			uri := FolderURI(other, "111111111111", "eu-west-1", "bf-scratch.example_1", path)
			got, ok := ParseS3(&model.Artifact{URI: uri})
			want := S3Object{Account: "111111111111", Region: "eu-west-1", Bucket: "bf-scratch.example_1", Path: path}
			if ok != (path != "") || ok && got != want {
				t.Errorf("%q read back as %+v (%v), want %+v", uri, got, ok, want)
			}
		}
	}
	for _, uri := range []string{
		FolderURI("s3", "111111111111", "eu-west-1", "b", "/"),
		FolderURI("s3", "111111111111", "eu-west-1", "b", ""),
		"s3://s3/111111111111/eu-west-1/b",
		"s3://s3/111111111111//b/tmp/",
		"s3://s3//eu-west-1/b/tmp/",
		"gcs://s3/111111111111/eu-west-1/b/tmp/",
	} {
		if got, ok := ParseS3(&model.Artifact{URI: uri}); ok {
			t.Errorf("%q read as %+v; want refused (a whole bucket, or not a URI the collector writes)", uri, got)
		}
	}
}
