package grafana

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes besides the model's.
const (
	AttrUID     = "uid"
	AttrTags    = "tags"    // the dashboard's tags, comma-separated, sorted
	AttrVersion = "version" // the dashboard's version, which the fix checks has not moved
	AttrGroup   = "rule_group"
)

// maxTags caps the tags kept of a dashboard.
const maxTags = 50

// tie asks the selector whether an object is made for a backfill: a tag or
// label carrying the id, a declared asset, the title, or a bare tag that
// holds an id (a tag "bf-1234").
func (g *Grafana) tie(uri, title string, labels map[string]string) (id, how string, ok bool) {
	if id, how, ok := g.env.Selector.Match(uri, title, labels); ok {
		return id, how, true
	}
	if id, ok := g.env.Selector.FromBareLabels(labels); ok {
		return id, "label", true
	}
	// A title is words: "BF-1234 replay monitor" names BF-1234 though the
	// id is followed by a space, which a name pattern does not end on.
	if id, ok := g.env.Selector.FromText(title); ok {
		return id, "name", true
	}
	return "", "", false
}

// boardArtifact builds the artifact of a dashboard read at scope (its
// dashboard unit, or the file that holds it), or nil when it is neither
// tied nor reads anything tied. uid is the key it is known by; h carries
// what a search said of it (title and tags when the model has none).
func (g *Grafana) boardArtifact(scope, uid, folderTitle string, h hit, b board) *model.Artifact {
	title := b.Title
	if title == "" {
		title = h.Title
	}
	tags := b.Tags
	if len(tags) == 0 {
		tags = h.Tags
	}
	uri := g.dashboardURI(uid)
	labels := mergeLabels(correlate.TagLabels(tags, maxTags), b.Labels)
	bf, how, tied := g.tie(uri, title, labels)
	rs := reads(g.env.Selector, b.Queries)
	if !tied && len(rs) == 0 {
		return nil
	}
	if b.Meta.FolderTitle != "" {
		folderTitle = b.Meta.FolderTitle
	}
	art := &model.Artifact{
		Kind: model.KindDashboard, System: "grafana", Scope: scope, URI: uri,
		Name: clip(title, 200), Labels: model.TagsOf(labels), State: model.StateActive,
		CreatedAt: model.At(b.Meta.Created), ModifiedAt: model.At(b.Meta.Updated),
	}
	if tied {
		art.BackfillID, art.Correlation = bf, how
		art.SetAttr(model.AttrTemporary, "true")
	}
	if len(rs) > 0 {
		art.SetAttr(model.AttrReads, model.FormatReads(rs))
	}
	art.SetAttr(AttrUID, uid)
	if len(tags) > 0 {
		art.SetAttr(AttrTags, joinSorted(tags))
	}
	if folderTitle != "" {
		art.SetAttr(model.AttrProject, clip(folderTitle, 200))
	}
	if b.Meta.Version > 0 {
		art.SetAttr(AttrVersion, strconv.FormatInt(b.Meta.Version, 10))
	}
	if base := g.base(); base != "" {
		if b.Meta.URL != "" && strings.HasPrefix(b.Meta.URL, "/") {
			art.SetAttr(model.AttrURL, base+b.Meta.URL)
		} else if b.Schema != "classic" {
			art.SetAttr(model.AttrURL, base+"/d/"+url.PathEscape(uid))
		}
		art.SetAttr(model.AttrAPIURL, base)
	}
	return art
}

// ruleArtifact builds the artifact of an alert rule, or nil when it is
// neither tied nor reads anything tied; unread counts its queries whose
// model could not be read (the rule was read only in part).
func (g *Grafana) ruleArtifact(r alertRule, folderTitle string) (art *model.Artifact, unread int) {
	uri := g.ruleURI(r.UID)
	bf, how, tied := g.tie(uri, r.Title, r.Labels)
	var qs []query
	for _, d := range r.Data {
		m, ok := asObject(d.Model)
		if !ok {
			unread++
			continue
		}
		for _, text := range targetTexts(m) {
			if len(qs) >= maxQueries {
				unread++
				break
			}
			qs = append(qs, query{where: `query "` + clip(d.RefID, 40) + `"`, text: text})
		}
	}
	rs := reads(g.env.Selector, qs)
	if !tied && len(rs) == 0 {
		return nil, unread
	}
	fu := r.FolderUID
	if fu == "" {
		fu = generalFolder
	}
	state := model.StateActive
	if r.IsPaused {
		state = model.StatePaused
	}
	art = &model.Artifact{
		Kind: model.KindAlert, System: "grafana", Scope: folderScope(fu), URI: uri,
		Name: clip(r.Title, 200), Labels: model.TagsOf(r.Labels), State: state, ModifiedAt: model.At(parseTime(r.Updated)),
	}
	if tied {
		art.BackfillID, art.Correlation = bf, how
		art.SetAttr(model.AttrWatchesOnly, "true")
	}
	if len(rs) > 0 {
		art.SetAttr(model.AttrReads, model.FormatReads(rs))
	}
	art.SetAttr(AttrUID, r.UID)
	if r.RuleGroup != "" {
		art.SetAttr(AttrGroup, clip(r.RuleGroup, 200))
	}
	if folderTitle != "" {
		art.SetAttr(model.AttrProject, clip(folderTitle, 200))
	}
	if base := g.base(); base != "" {
		art.SetAttr(model.AttrURL, base+"/alerting/grafana/"+url.PathEscape(r.UID)+"/view")
		art.SetAttr(model.AttrAPIURL, base)
	}
	return art, unread
}

func joinSorted(tags []string) string {
	out := make([]string, 0, len(tags))
	for i, t := range tags {
		if i >= maxTags {
			break
		}
		if t = clip(t, 100); t != "" {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}
