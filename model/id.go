package model

import (
	"slices"
	"strconv"
	"strings"
)

// BackfillID is a backfill id in its normal form. The spellings systems
// allow all meet there: BigQuery labels are lowercase only and many systems
// forbid '-', so "BF-1234", "bf_1234" and "bf-1234" are one backfill,
// BF-1234. An id is folded once, by ParseID where it is read (a plan, a
// record, an artifact's tie, a flag, a config key, a history row), and
// every later step compares BackfillIDs with ==. Make one only with
// ParseID: a conversion from a string skips the folding.
//
// The spelling a source used stays in the model's string fields
// (Backfill.ID, Artifact.BackfillID, ...): reports show it as written.
type BackfillID string

// ParseID folds a spelling of a backfill id into its normal form: upper
// case, '_' read as '-', no surrounding space, and letters glued to digits
// split by '-' ("BF1234" is BF-1234: an alert or a Go identifier cannot
// hold a '-').
func ParseID(spelling string) BackfillID {
	if isNormal(spelling) {
		return BackfillID(spelling) // most ids are spelt normally: no copy
	}
	id := strings.TrimSpace(strings.ToUpper(spelling))
	id = strings.ReplaceAll(id, "_", "-")
	if i := glued(id); i > 0 {
		id = id[:i] + "-" + id[i:]
	}
	return BackfillID(id)
}

// glued returns where the digits start in an id of letters followed
// directly by digits ("BF1234": 2), or 0 for any other shape.
func glued(s string) int {
	i := 0
	for i < len(s) && ('A' <= s[i] && s[i] <= 'Z' || 'a' <= s[i] && s[i] <= 'z') {
		i++
	}
	if i == 0 || i == len(s) {
		return 0
	}
	for j := i; j < len(s); j++ {
		if s[j] < '0' || s[j] > '9' {
			return 0
		}
	}
	return i
}

// isNormal reports, for plain ASCII, whether s is already what ParseID
// makes of it; other text takes the folding path.
func isNormal(s string) bool {
	if s == "" {
		return true
	}
	if isSpace(s[0]) || isSpace(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == '_' || ('a' <= c && c <= 'z') {
			return false
		}
	}
	return glued(s) == 0
}

func isSpace(c byte) bool { return c == ' ' || ('\t' <= c && c <= '\r') }

// SameID reports whether two spellings name the same backfill.
func SameID(a, b string) bool { return a != "" && ParseID(a) == ParseID(b) }

// HasID reports whether one of ids names the backfill id names.
func HasID(ids []string, id string) bool {
	return slices.ContainsFunc(ids, func(have string) bool { return SameID(have, id) })
}

// AddID appends id to ids unless it is empty or names a backfill one of
// them names already: the ids an object is tied to, each once, in the
// order they were found.
func AddID(ids []string, id string) []string {
	if id == "" || HasID(ids, id) {
		return ids
	}
	return append(ids, id)
}

func itoa(i int) string { return strconv.Itoa(i) }
