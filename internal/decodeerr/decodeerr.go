// Package decodeerr says what is wrong with a value a person wrote (a
// config key, a plan field) in their words, not the decoder's: the key's
// path, the value, what was expected and, for a misspelt key, the nearest
// known one. Decoders name Go types (`cannot unmarshal !!str into
// records.rangeDoc`) and cut values short; these messages do neither.
package decodeerr

import (
	"fmt"
	"sort"
)

// Problem is one bad key or value.
type Problem struct {
	// Key is the path of the key: "timeline.completed", "sources[0].project".
	Key string
	// Line is the 1-based line in the file, 0 when unknown.
	Line int
	// Msg says what was wrong and what was expected.
	Msg string
}

func (p *Problem) Error() string {
	if p.Key == "" {
		return p.Msg
	}
	return p.Key + ": " + p.Msg
}

// UnknownKey words a key the target does not have: the nearest known key
// when one is close, else every known key.
func UnknownKey(key string, known []string) string { return unknownKey(key, known) }

func unknownKey(key string, known []string) string {
	if near := Nearest(key, known); near != "" {
		return fmt.Sprintf("unknown key; did you mean %s?", near)
	}
	if len(known) == 0 {
		return "unknown key"
	}
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	return fmt.Sprintf("unknown key (expected one of %s)", joinList(sorted))
}

func sortProblems(ps []*Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Key < ps[j].Key
	})
}
