package grafana

import (
	"net/url"

	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built and read here only:
//
//	grafana://<source>/dashboards/<uid>    a dashboard
//	grafana://<source>/alert-rules/<uid>   a Grafana-managed alert rule
//
// The uid is path-escaped. The same objects in the HTTP API, where the
// commands and the fix action delete them, are apiPath's.

func (g *Grafana) dashboardURI(uid string) string {
	return "grafana://" + g.env.Source + "/dashboards/" + url.PathEscape(uid)
}

func (g *Grafana) ruleURI(uid string) string {
	return "grafana://" + g.env.Source + "/alert-rules/" + url.PathEscape(uid)
}

// parseURI reads the kind and uid back from a dashboard's or rule's URI.
func parseURI(uri string) (kind model.Kind, uid string, ok bool) {
	segs, ok := model.URISegments(uri, "grafana")
	if !ok || len(segs) != 2 {
		return "", "", false
	}
	switch segs[0] {
	case "dashboards":
		return model.KindDashboard, segs[1], true
	case "alert-rules":
		return model.KindAlert, segs[1], true
	}
	return "", "", false
}

// objectUID is the uid of a dashboard or rule artifact: its uid
// attribute, else its name (a finding's artifact inferred from a report).
func objectUID(a *model.Artifact) string {
	if uid := a.Attr(AttrUID); uid != "" {
		return uid
	}
	return a.Name
}

// apiPath is the HTTP API path of a dashboard or alert rule, "" for
// another kind: GET reads it, DELETE deletes it.
func apiPath(kind model.Kind, uid string) string {
	switch kind {
	case model.KindDashboard:
		return dashboardPath(uid)
	case model.KindAlert:
		return "/api/v1/provisioning/alert-rules/" + url.PathEscape(uid)
	}
	return ""
}

func dashboardPath(uid string) string { return "/api/dashboards/uid/" + url.PathEscape(uid) }
