package gcs

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a checkpoint's URI, the commands, the fix
// action and the inference from a finding read back to the same bucket and
// path, whatever the object names and the source hold; the whole bucket is
// never read as a checkpoint. Bucket names cannot hold '/', '?' or '#'.
func TestFolderURIRoundTrip(t *testing.T) {
	names := remedytest.HostileNames
	for i, name := range names {
		other := names[(i+1)%len(names)]
		for _, path := range []string{"ckpt/" + name + "/", name + "/" + other, "ckpt/" + name} {
			uri := FolderURI(other, "bf-scratch.example_1", path)
			got, ok := ParseGCS(&model.Artifact{URI: uri})
			want := GCSObject{Bucket: "bf-scratch.example_1", Path: path}
			if !ok || got != want {
				t.Errorf("%q read back as %+v (%v), want %+v", uri, got, ok, want)
			}
		}
	}
	if got, ok := ParseGCS(&model.Artifact{URI: FolderURI("gcs", "b", "/")}); ok {
		t.Errorf("the whole bucket read as %+v", got)
	}
}
