package builtin

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// Evidence names the source as a source: "is active in exports" read to
// an owner as if the table were in some export.
func TestStateNoteCallsTheSourceASource(t *testing.T) {
	a := &model.Artifact{Kind: model.KindTable, URI: "bigquery://p/d/t", Source: "exports", State: model.StateActive}
	if got, want := stateNote(a), `table bigquery://p/d/t is active, as source "exports" reports it`; got != want {
		t.Errorf("stateNote = %q, want %q", got, want)
	}
	a.State = ""
	if got, want := stateNote(a), `table bigquery://p/d/t is reported by source "exports"`; got != want {
		t.Errorf("stateNote = %q, want %q", got, want)
	}
}
