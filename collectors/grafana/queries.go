package grafana

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"

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

// query is one query text and where it sits.
type query struct {
	where string // panel "Refunds" or query "A"
	text  string
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

// identPart is one part of a qualified SQL name: "quoted" (PostgreSQL,
// Redshift, Snowflake), `backticked` (BigQuery, MySQL), [bracketed] (SQL
// Server), or bare.
const identPart = `(?:"[^"\n]{1,300}"|` + "`[^`\n]{1,300}`" + `|\[[^\]\n]{1,300}\]|[A-Za-z_][A-Za-z0-9_$]{0,299})`

// The collector's regexps are compiled on first use: their bounded
// repeats make large programs (3 MB at init), which every run of the
// binary would otherwise hold, Grafana configured or not.
var (
	// qualified is a dotted name with at least two parts, some quoted:
	// "analytics"."bf_1234_refunds", `proj`.`ds`.`tbl`, [dbo].[bf_1234_x].
	qualified  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(identPart + `(?:\.` + identPart + `)+`) })
	backticked = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`]{1,300})`") })
	quoted     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"([^"\n]{1,300})"|'([^'\n]{1,300})'`) })
	// word is a run of identifier characters, dotted names included:
	// project.dataset.table, schema.table, a job name.
	word = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9_$][A-Za-z0-9_$.\-]{0,299}`) })
)

// identifiers lists the names a query text mentions: qualified names
// whose parts are quoted, unquoted and joined with dots so the schema
// stays with the table ("analytics"."bf_1234_refunds" is
// analytics.bf_1234_refunds), backticked names (`project.dataset.table`),
// quoted strings (job="bf_1234_replay") and bare words and dotted names
// (analytics.bf_1234_refunds), in order of first appearance, without
// repeats.
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
	// A qualified name with a quoted part is one identifier; its parts are
	// blanked so they do not come out again on their own.
	rest := []byte(text)
	for _, loc := range qualified().FindAllStringIndex(text, -1) {
		m := text[loc[0]:loc[1]]
		if !strings.ContainsAny(m, "\"`[") {
			continue // bare dotted names are words
		}
		add(unquoteQualified(m))
		for i := loc[0]; i < loc[1]; i++ {
			rest[i] = ' '
		}
	}
	text = string(rest)
	for _, m := range backticked().FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	for _, m := range quoted().FindAllStringSubmatch(text, -1) {
		add(m[1] + m[2])
	}
	for _, m := range word().FindAllString(text, -1) {
		add(m)
	}
	return out
}

// unquoteQualified joins the parts of a qualified name without their
// quotes: "analytics"."t" -> analytics.t, [dbo].[t] -> dbo.t.
func unquoteQualified(m string) string {
	var parts []string
	for _, p := range identPartRe().FindAllString(m, -1) {
		switch {
		case len(p) >= 2 && (p[0] == '"' || p[0] == '`'):
			p = p[1 : len(p)-1]
		case len(p) >= 2 && p[0] == '[':
			p = p[1 : len(p)-1]
		}
		parts = append(parts, strings.TrimSpace(p))
	}
	return strings.Join(parts, ".")
}

var identPartRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(identPart) })

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
