package alertmanager

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/prometheus/prometheus/model/labels"
)

// tiedSilence is a silence tied to a backfill, and how.
type tiedSilence struct {
	silence
	uri        string
	backfillID string
	how        string   // label, asset, matcher or comment
	others     []string // further backfill ids it names
}

// tie says which backfill a silence belongs to, trying in turn: a matcher
// on a backfill label key (backfill_id="bf-1234", or a regex that is a
// list of literal ids), the plans' declared assets, the id in any other
// positive matcher's value (job="bf_1234_replay"), and the id in the
// comment ("BF-1234 replay: mute orders lag"). Wildcard regexes name no
// backfill: bf-12.* matches many.
func (a *Alertmanager) tie(s silence) (tiedSilence, bool) {
	t := tiedSilence{silence: s, uri: a.uri(s.ID)}
	var ids []string
	add := func(id, how string) {
		if len(ids) == 0 && id != "" {
			t.how = how
		}
		ids = model.AddID(ids, id)
	}
	for _, m := range s.Matchers {
		if !m.positive() || !a.isLabelKey(m.Name) {
			continue
		}
		for _, v := range literals(m) {
			add(v, "label")
		}
	}
	if id, ok := a.env.Selector.Assets[t.uri]; ok {
		add(id, "asset")
	}
	for _, m := range s.Matchers {
		if !m.positive() || a.isLabelKey(m.Name) {
			continue
		}
		for _, v := range literals(m) {
			if id, ok := a.env.Selector.FromName(v); ok {
				add(id, "matcher")
			}
		}
	}
	for _, id := range a.env.Selector.TextIDs(s.Comment) {
		add(id, "comment")
	}
	if len(ids) == 0 {
		return t, false
	}
	t.backfillID, t.others = ids[0], ids[1:]
	return t, true
}

func (a *Alertmanager) isLabelKey(name string) bool {
	_, ok := a.env.Selector.FromLabels(map[string]string{name: "x"})
	return ok
}

// literals lists the values a positive matcher accepts when they are a
// finite list: its value, or the alternatives of a regex made only of
// literals (bf-1234|bf-1235). Nil for an open regex.
func literals(m matcher) []string {
	if !m.IsRegex {
		return []string{m.Value}
	}
	lm, err := labels.NewMatcher(labels.MatchRegexp, m.Name, m.Value)
	if err != nil {
		return nil
	}
	set := lm.SetMatches()
	for _, v := range set {
		if v == "" {
			return nil
		}
	}
	return set
}

// matchersText writes matchers as Alertmanager and amtool print them:
// {backfill_id="bf-1234", severity=~"critical|page", env!="dev"}.
func matchersText(ms []matcher) string {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		op := "="
		switch {
		case m.IsRegex && m.positive():
			op = "=~"
		case m.IsRegex:
			op = "!~"
		case !m.positive():
			op = "!="
		}
		parts = append(parts, m.Name+op+strconv.Quote(m.Value))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// equalities are a silence's positive equality matchers: the labels an
// alert must carry to be muted, which the artifact keeps as its labels.
func equalities(ms []matcher) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		if m.positive() && !m.IsRegex {
			out[m.Name] = m.Value
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// selectsCritical reports whether a positive matcher on severity accepts
// "critical": the silence was made to mute critical alerts.
func selectsCritical(ms []matcher) bool {
	for _, m := range ms {
		if m.Name != "severity" || !m.positive() {
			continue
		}
		if !m.IsRegex && m.Value == "critical" {
			return true
		}
		if m.IsRegex {
			re, err := regexp.Compile("^(?:" + m.Value + ")$")
			if err == nil && re.MatchString("critical") {
				return true
			}
		}
	}
	return false
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
