package rules

import "github.com/bfaudit/bfaudit/model"

// KeyLines finds the line of a key inside a plan document: loc is the
// plan's Source (file and the line its document starts on), key a dotted
// path such as "concurrency" or "elevated_access[1].expiry". It returns 0
// when it does not know, and the finding then points at the document.
// `bfaudit plan check` fills it from the plan files it reads, so a finding
// points at the offending key.
type KeyLines func(loc model.Location, key string) int

// PlanAt is where a governance finding about a plan's key points: the
// key's own line when known, else the plan document's line. It returns nil
// for a backfill that was not read from a file.
func (c *Context) PlanAt(b *model.Backfill, keys ...string) *model.Location {
	if b == nil || b.Source.Path == "" {
		return nil
	}
	loc := b.Source
	if c.keyLines != nil {
		for _, k := range keys {
			if n := c.keyLines(b.Source, k); n > 0 {
				loc.Line = n
				break
			}
		}
	}
	return &loc
}
