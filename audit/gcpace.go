package audit

import "runtime/debug"

// tightGC is the garbage collector's pace while an audit of releaseFrom
// artifacts or more runs: a collection once the heap has grown by a
// quarter over what the last one left live, instead of Go's default,
// doubled. What an audit keeps (the index, the staged findings, the
// report) is most of its heap, and the rules make about as much garbage
// again as they keep: at the default pace that garbage filled the heap to
// twice the live set before each collection, and the peak was there. At
// a quarter the bench estate's audit peaks 20-25 MiB lower (of 267 MiB)
// for about 0.3 s more CPU, a million artifacts' 0.15 GiB lower (of
// 1.9 GiB) for 2 s (bench/README.md).
const tightGC = 25

// setGCPercent is debug.SetGCPercent (a variable for tests).
var setGCPercent = debug.SetGCPercent

// paceGC sets the collector's pace for an audit of an estate of that many
// artifacts and returns what puts the pace back. A pace set through
// GOGC (anything but the default 100) is left as it is: whoever set it
// chose between memory and time.
func paceGC(artifacts int) (restore func()) {
	if artifacts < releaseFrom {
		return func() {}
	}
	old := setGCPercent(tightGC)
	if old != 100 {
		setGCPercent(old)
		return func() {}
	}
	return func() { setGCPercent(old) }
}
