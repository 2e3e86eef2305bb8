package grafana

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Bounds of what one dashboard or rule contributes.
const (
	// maxReads caps the reads kept per dashboard or rule.
	maxReads = 50
	// maxQueryChars caps the text scanned of one query field.
	maxQueryChars = 64 << 10
	// maxQueries caps the query fields scanned per dashboard or rule.
	maxQueries = 2000
	// maxPanelDepth caps the nesting of rows and panels followed.
	maxPanelDepth = 8
)

// queryFields are the target fields that hold a query's text, across the
// data sources: SQL (rawSql, sql, rawQuery as text), PromQL and LogQL
// (expr), Elasticsearch, InfluxDB and others (query).
var queryFields = []string{"rawSql", "sql", "rawQuery", "expr", "query"}

// dashboardJSON is the part of a dashboard model read: panels, which may
// hold panels (a collapsed row), and the rows of the old schema.
type dashboardJSON struct {
	Title  string      `json:"title"`
	UID    string      `json:"uid"`
	Tags   []string    `json:"tags"`
	Panels []panelJSON `json:"panels"`
	Rows   []panelJSON `json:"rows"`
}

type panelJSON struct {
	Title   string                       `json:"title"`
	Targets []map[string]json.RawMessage `json:"targets"`
	Panels  []panelJSON                  `json:"panels"`
}

// query is one query text and where it sits.
type query struct {
	where string // panel "Refunds" or query "A"
	text  string
}

// dashboardQueries lists the queries of a dashboard's panels, rows and
// collapsed rows included, up to maxQueries.
func dashboardQueries(d dashboardJSON) []query {
	var out []query
	var walk func(ps []panelJSON, depth int)
	walk = func(ps []panelJSON, depth int) {
		if depth > maxPanelDepth {
			return
		}
		for _, p := range ps {
			where := `panel "` + clip(p.Title, 120) + `"`
			for _, t := range p.Targets {
				for _, text := range targetTexts(t) {
					if len(out) >= maxQueries {
						return
					}
					out = append(out, query{where: where, text: text})
				}
			}
			walk(p.Panels, depth+1)
		}
	}
	walk(d.Panels, 0)
	walk(d.Rows, 0)
	return out
}

// targetTexts are the query texts of one target (or rule model): its
// string-valued query fields, each cut to maxQueryChars. A field of
// another type (InfluxDB's rawQuery is a flag) is not a query.
func targetTexts(t map[string]json.RawMessage) []string {
	var out []string
	for _, f := range queryFields {
		raw, ok := t[f]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil || s == "" {
			continue
		}
		if len(s) > maxQueryChars {
			s = s[:maxQueryChars]
		}
		out = append(out, s)
	}
	return out
}

var (
	backticked = regexp.MustCompile("`([^`]{1,300})`")
	quoted     = regexp.MustCompile(`"([^"\n]{1,300})"|'([^'\n]{1,300})'`)
	// word is a run of identifier characters, dotted names included:
	// project.dataset.table, schema.table, a job name.
	word = regexp.MustCompile(`[A-Za-z0-9_$][A-Za-z0-9_$.\-]{0,299}`)
)

// identifiers lists the names a query text mentions: backticked names
// (`project.dataset.table`), quoted strings (job="bf_1234_replay") and
// bare words and dotted names (analytics.bf_1234_refunds), in order of
// first appearance, without repeats.
func identifiers(text string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.Trim(strings.TrimSpace(s), ".-")
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	for _, m := range backticked.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	for _, m := range quoted.FindAllStringSubmatch(text, -1) {
		add(m[1] + m[2])
	}
	for _, m := range word.FindAllString(text, -1) {
		add(m)
	}
	return out
}

// reads ties the identifiers of queries with the selector: each one the
// selector ties is a read, once per identifier and place, sorted, at most
// maxReads.
func reads(sel *correlate.Selector, qs []query) []model.Read {
	seen := map[[2]string]bool{}
	var out []model.Read
	for _, q := range qs {
		for _, id := range identifiers(q.text) {
			bf, _, ok := sel.Match("", id, nil)
			if !ok {
				continue
			}
			key := [2]string{id, q.where}
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, model.Read{Identifier: clip(id, 300), BackfillID: bf, Where: q.where})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Identifier != out[j].Identifier {
			return out[i].Identifier < out[j].Identifier
		}
		return out[i].Where < out[j].Where
	})
	if len(out) > maxReads {
		out = out[:maxReads]
	}
	return out
}
