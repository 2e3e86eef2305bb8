package reports

import (
	"context"
	"io"

	"github.com/bfaudit/bfaudit/internal/jsonstream"
	"github.com/bfaudit/bfaudit/model"
)

// JSON writes the report as indented JSON; its schema is versioned by
// model.ReportVersion. The backfills and findings are written one at a
// time through a buffer, so a report of a million findings is never held
// in memory as text.
type JSON struct{}

// Write implements Writer.
func (JSON) Write(_ context.Context, w io.Writer, r *model.Report) error {
	// The overdue count is the findings' at the report's time, whoever
	// set their due dates; a shallow copy carries it without touching r.
	c := *r
	c.Summary.Overdue = OverdueCount(r)
	return jsonstream.Encode(w, &c, jsonstream.Elem(appendFinding))
}
