package collectors

import (
	"reflect"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// A listing across units says, unit by unit and kind by kind, what it
// read: counts add up, a unit that read none says 0, the order is stable.
func TestReadsSaysEachUnitOnceInOrder(t *testing.T) {
	var r Reads
	r.Add("b", "jobs", 1, 0)
	r.Add("a", "jobs", 1, 1)
	r.Add("b", "jobs", 2, 1)
	r.Add("a", "cronjobs", 0, 0)
	sink := NewTestSink()
	r.AddTo(sink)
	want := []model.UnitRead{
		{Scope: "a", What: "cronjobs"},
		{Scope: "a", What: "jobs", Read: 1, Partial: 1},
		{Scope: "b", What: "jobs", Read: 3, Partial: 1},
	}
	if !reflect.DeepEqual(sink.Reads, want) || r.Len() != 3 {
		t.Errorf("reads = %+v (%d), want %+v", sink.Reads, r.Len(), want)
	}
}
