package reports

import (
	"context"
	"encoding/json"
	"io"

	"github.com/bfaudit/bfaudit/model"
)

// JSON writes the report as indented JSON; its schema is versioned by
// model.ReportVersion.
type JSON struct{}

// Write implements Writer.
func (JSON) Write(_ context.Context, w io.Writer, r *model.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
