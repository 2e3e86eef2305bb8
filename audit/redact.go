package audit

import (
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

// Redact masks every configured secret in the report's free text, in
// place: coverage errors, validation errors, notes, messages, evidence and
// problems. Servers echo requests back in their errors (a proxy's 502 page
// with the Authorization header), so anything that came from the outside
// passes through here before it is written, posted or stored.
func Redact(r *model.Report) {
	for i := range r.Coverage {
		RedactCoverage(&r.Coverage[i])
	}
	for i := range r.Backfills {
		b := r.Backfills[i].Backfill
		redactAll(b.Notes)
		if b.Validation != nil {
			b.Validation.Error = redact.String(b.Validation.Error)
		}
		redactAll(r.Backfills[i].Lifecycle.Blockers)
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		f.Message = redact.String(f.Message)
		redactAll(f.Evidence)
	}
	redactAll(r.Problems)
}

// RedactCoverage masks secrets in one source's errors.
func RedactCoverage(c *model.Coverage) {
	c.Error = redact.String(c.Error)
	redactAll(c.Notes)
	for j := range c.Errors {
		c.Errors[j].Error = redact.String(c.Errors[j].Error)
	}
}

func redactAll(ss []string) {
	for i := range ss {
		ss[i] = redact.String(ss[i])
	}
}
