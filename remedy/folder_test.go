package remedy

import (
	"maps"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// A folder is unchanged when Read and Expected agree: the same objects,
// the same latest write, whatever the time zone either was read in.
func TestFolderReadMatchesExpected(t *testing.T) {
	latest := time.Date(2026, 1, 12, 9, 30, 0, 500, time.UTC)
	a := &model.Artifact{ModifiedAt: model.At(latest.In(time.FixedZone("CET", 3600))), Attributes: model.Attrs(model.AttrObjects, "3")}
	got := FolderRead(3, latest.In(time.FixedZone("EST", -5*3600)))
	if !got.Found || !maps.Equal(got.State, FolderExpected(a)) {
		t.Errorf("FolderRead = %+v, FolderExpected = %v: an unchanged folder must compare equal", got, FolderExpected(a))
	}
	if FolderRead(4, latest).State[model.AttrObjects] == got.State[model.AttrObjects] {
		t.Error("a folder holding another object must not compare equal")
	}
	if later := FolderRead(3, latest.Add(time.Nanosecond)); maps.Equal(later.State, FolderExpected(a)) {
		t.Error("a folder written to since the audit must not compare equal")
	}
	if gone := FolderRead(0, time.Time{}); gone.Found {
		t.Errorf("an empty folder is gone, got %+v", gone)
	}
}

func TestSaw(t *testing.T) {
	a := &model.Artifact{Attributes: model.Attrs("durable", "true", "exclusive", "", "other", "x")}
	want := map[string]string{"durable": "true"}
	if got := Saw(a, "durable", "exclusive", "auto_delete"); !maps.Equal(got, want) {
		t.Errorf("Saw = %v, want %v (only the keys asked, only those set)", got, want)
	}
	if got := Saw(&model.Artifact{}, "durable"); got == nil || len(got) != 0 {
		t.Errorf("Saw of an artifact without attributes = %#v, want an empty map its caller can add to", got)
	}
}
