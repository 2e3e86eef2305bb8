package remedy

import (
	"strconv"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// A folder of an object store (GCS, S3) is compared by how many objects
// it holds and when the latest was written: a folder written to since
// the audit (another object, a later write) is left alone.
const folderModified = "modified_at"

// FolderRead is Read's answer for a folder that holds objects objects,
// the latest written at latest: gone when it holds none.
func FolderRead(objects int, latest time.Time) Observed {
	if objects == 0 {
		return Observed{}
	}
	return Observed{Found: true, State: map[string]string{
		model.AttrObjects: strconv.Itoa(objects),
		folderModified:    latest.UTC().Format(time.RFC3339Nano),
	}}
}

// FolderExpected is what the audit saw of a folder, in FolderRead's
// terms: its objects (model.AttrObjects) and latest write (ModifiedAt).
func FolderExpected(a *model.Artifact) map[string]string {
	out := Saw(a, model.AttrObjects)
	if !a.ModifiedAt.IsZero() {
		out[folderModified] = a.ModifiedAt.Time().UTC().Format(time.RFC3339Nano)
	}
	return out
}
