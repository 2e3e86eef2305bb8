package correlate

// UnreadUnit is a unit that did not answer: its source, and the unit as
// reports name it ("plans / records/bf-1234.md", or the source alone).
type UnreadUnit struct{ Source, Unit string }

// RecordsUnread lists the units of the sources that read decision records
// which did not answer this run: a backfill whose record is not in the
// estate may have one there, unread. A source reads decision records when
// it is the records collector or it reported one this run.
func (ix *Index) RecordsUnread() []UnreadUnit {
	var out []UnreadUnit
	for _, c := range ix.Estate.Coverage {
		if c.Full() || c.System != "records" && !ix.recordSources[c.Source] {
			continue
		}
		for _, u := range c.UnansweredUnits() {
			out = append(out, UnreadUnit{c.Source, u})
		}
	}
	return out
}
