package reports

import (
	"github.com/bfaudit/bfaudit/internal/jsonstream"
	"github.com/bfaudit/bfaudit/model"
)

// appendFinding appends a finding as json.MarshalIndent writes it at depth:
// the fields of model.Finding in order, with their json names, omitempty
// and omitzero. Findings are nearly all of a large report, and this is
// several times faster than encoding/json's reflection;
// TestFindingJSONMatchesMarshal holds it to encoding/json's bytes for
// every field, so a field added to model.Finding and not here fails it.
func appendFinding(b []byte, f *model.Finding, depth int) ([]byte, error) {
	sev, err := f.Severity.MarshalText()
	if err != nil {
		// The error encoding/json gives, naming the type.
		return jsonstream.AppendValue(b, f.Severity, depth)
	}
	step, _ := f.Step.MarshalText()
	in := depth + 1
	field := func(name string) {
		b = append(b, ',')
		b = jsonstream.AppendNewline(b, in)
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `": `...)
	}
	str := func(name, v string, omitEmpty bool) {
		if omitEmpty && v == "" {
			return
		}
		field(name)
		b = jsonstream.AppendString(b, v)
	}
	list := func(name string, vs []string) {
		if len(vs) == 0 {
			return // omitempty
		}
		field(name)
		b = append(b, '[')
		for i, v := range vs {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstream.AppendNewline(b, in+1)
			b = jsonstream.AppendString(b, v)
		}
		b = jsonstream.AppendNewline(b, in)
		b = append(b, ']')
	}
	value := func(name string, v any) {
		field(name)
		var verr error
		if b, verr = jsonstream.AppendValue(b, v, in); verr != nil && err == nil {
			err = verr
		}
	}
	b = append(b, '{')
	b = jsonstream.AppendNewline(b, in)
	b = append(b, `"rule_id": `...)
	b = jsonstream.AppendString(b, f.RuleID)
	str("rule_name", f.RuleName, false)
	str("title", f.Title, false)
	str("severity", string(sev), false)
	str("step", string(step), false)
	str("backfill_id", f.BackfillID, true)
	str("artifact_uri", f.ArtifactURI, true)
	str("owner", f.Owner, true)
	str("team", f.Team, true)
	str("message", f.Message, false)
	list("evidence", f.Evidence)
	list("folded", f.Folded)
	str("remediation", f.Remediation, true)
	str("fingerprint", f.Fingerprint, false)
	str("source", f.Source, true)
	str("scope", f.Scope, true)
	if f.Location != nil {
		value("location", f.Location)
	}
	list("unread", f.Unread)
	if !f.FirstSeen.IsZero() {
		value("first_seen", f.FirstSeen)
	}
	if !f.LastSeen.IsZero() {
		value("last_seen", f.LastSeen)
	}
	if !f.DueAt.IsZero() {
		value("due_at", f.DueAt)
	}
	if f.Overdue {
		value("overdue", true)
	}
	if f.Waiver != nil {
		value("waiver", f.Waiver)
	}
	b = jsonstream.AppendNewline(b, depth)
	return append(b, '}'), err
}
