// Package correlate ties artifacts to the backfills they belong to, by the
// backfill id in their labels or tags, in their names, or in a plan's list
// of declared assets, and merges what several sources say of one backfill.
package correlate

import (
	"iter"
	"maps"

	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/bfaudit/bfaudit/model"
)

// DefaultLabelKeys are the label or tag keys that carry a backfill id.
var DefaultLabelKeys = []string{"backfill_id", "backfill-id", "backfill"}

// DefaultNamePatterns find a backfill id in an object's name, e.g.
// bf_1234_refunds, replay-bf-1234 or tmp_bf_1234_refunds (an underscore
// is a separator in table names, though not a word boundary), never inside
// a word (pdf_2024, abf_12). The first capture group is the id.
//
// Without a separator an id needs three digits or more: BF1234 is BF-1234,
// but bf16 and BF16 are bfloat16, the number format every machine-learning
// notebook, config and file name spells that way (bf16_model.ipynb,
// --bf16, fp8/bf16 benchmarks), and none of them is a backfill.
var DefaultNamePatterns = []string{`(?i)(?:^|[^a-z0-9])(bf(?:[-_]\d+|\d\d\d+))(?:[-_.]|$)`}

// Selector decides which objects are backfill machinery and which backfill
// they belong to. Collectors use it to keep only what matters from large
// catalogues; the correlate stage uses it to tie what they kept.
type Selector struct {
	LabelKeys    []string
	NamePatterns []*regexp.Regexp
	// Assets are URIs that plans declare (assets_to_remove), each mapped to
	// its backfill id: such objects belong to that backfill even with no
	// label or telling name.
	Assets map[string]string
	// Principals are the members plans grant elevated access to
	// (serviceAccount:x@p.iam.gserviceaccount.com), by their bare e-mail
	// in lower case, each mapped to its backfill id.
	Principals map[string]string
}

// NewSelector compiles a selector; patterns must have one capture group.
func NewSelector(labelKeys, patterns []string) (*Selector, error) {
	s := &Selector{LabelKeys: labelKeys, Assets: map[string]string{}, Principals: map[string]string{}}
	if len(s.LabelKeys) == 0 {
		s.LabelKeys = DefaultLabelKeys
	}
	if len(patterns) == 0 {
		patterns = DefaultNamePatterns
	}
	for i, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("name_patterns[%d]: %q does not compile: %v", i, p, err)
		}
		if re.NumSubexp() < 1 {
			return nil, fmt.Errorf("name_patterns[%d]: %q needs a capture group around the backfill id", i, p)
		}
		s.NamePatterns = append(s.NamePatterns, re)
	}
	return s, nil
}

// MustSelector is NewSelector with the defaults, for tests and callers that
// have no config.
func MustSelector() *Selector {
	s, err := NewSelector(nil, nil)
	if err != nil {
		panic(err)
	}
	return s
}

// FromLabels returns the backfill id carried by a label or tag, matching
// keys case-insensitively with '-' and '_' equivalent.
func (s *Selector) FromLabels(labels map[string]string) (string, bool) {
	return s.fromLabels(maps.All(labels))
}

// fromLabels is FromLabels over a map's or an artifact's tags.
func (s *Selector) fromLabels(labels iter.Seq2[string, string]) (string, bool) {
	for _, want := range s.LabelKeys {
		for k, v := range labels {
			if v != "" && foldKey(k) == foldKey(want) {
				return v, true
			}
		}
	}
	return "", false
}

// FromName returns the backfill id found in a name by the patterns.
func (s *Selector) FromName(name string) (string, bool) {
	for _, re := range s.NamePatterns {
		if m := re.FindStringSubmatch(name); m != nil && m[1] != "" {
			return m[1], true
		}
	}
	return "", false
}

// FromBareLabels returns the id the name patterns find in a label or tag
// that has no value ("bf-1234" as a tag), trying them in sorted order so
// an object with two such tags is tied the same way every run.
func (s *Selector) FromBareLabels(labels map[string]string) (string, bool) {
	bare := make([]string, 0, len(labels))
	for k, v := range labels {
		if v == "" {
			bare = append(bare, k)
		}
	}
	sort.Strings(bare)
	for _, k := range bare {
		if id, ok := s.FromName(k); ok {
			return id, true
		}
	}
	return "", false
}

// FromText returns the first backfill id TextIDs finds in free text.
func (s *Selector) FromText(text string) (string, bool) {
	if ids := s.TextIDs(text); len(ids) > 0 {
		return ids[0], true
	}
	return "", false
}

// TextIDs returns the backfill ids the name patterns find in free text (a
// description, a comment, a title), word by word, in order: the text is
// split on spaces and punctuation and each word's trailing punctuation
// trimmed, so a pattern anchored at the end of the id finds it in
// "BF-1234: replay", "(BF-1234)" or "BF-1234 replay monitor".
func (s *Selector) TextIDs(text string) []string {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;()[]{}<>\"'`|/", r)
	})
	var ids []string
	for _, f := range fields {
		if f = strings.TrimRight(f, ".:!?#*"); f != "" {
			if id, ok := s.FromName(f); ok {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// Match says whether an object is backfill machinery and, if so, which
// backfill, and how the tie was made ("label", "asset" or "name").
func (s *Selector) Match(uri, name string, labels map[string]string) (id, how string, ok bool) {
	return s.match(uri, name, maps.All(labels))
}

// MatchTags is Match for an artifact's labels.
func (s *Selector) MatchTags(uri, name string, labels *model.Tags) (id, how string, ok bool) {
	return s.match(uri, name, labels.All())
}

func (s *Selector) match(uri, name string, labels iter.Seq2[string, string]) (id, how string, ok bool) {
	if id, ok := s.fromLabels(labels); ok {
		return id, "label", true
	}
	if id, ok := s.Assets[uri]; ok {
		return id, "asset", true
	}
	if id, ok := s.FromName(name); ok {
		return id, "name", true
	}
	return "", "", false
}

// AddAssets records the declared assets and elevated-access principals of
// plans.
func (s *Selector) AddAssets(backfills []model.Backfill) {
	for _, b := range backfills {
		for _, a := range b.AssetsToRemove {
			s.Assets[a] = b.ID
		}
		for _, e := range b.ElevatedAccess {
			if e.Principal != "" {
				s.Principals[bareMember(e.Principal)] = b.ID
			}
		}
	}
}

// FromPrincipal returns the backfill whose plan grants elevated access to
// an IAM-style member (the type prefix is optional on either side).
func (s *Selector) FromPrincipal(member string) (string, bool) {
	id, ok := s.Principals[bareMember(member)]
	return id, ok
}

// bareMember drops a member's type ("serviceAccount:", "user:") and case.
func bareMember(m string) string {
	if i := strings.LastIndex(m, ":"); i >= 0 {
		m = m[i+1:]
	}
	return strings.ToLower(strings.TrimSpace(m))
}

func foldKey(k string) string { return strings.ReplaceAll(strings.ToLower(k), "-", "_") }
