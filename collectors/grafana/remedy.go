package grafana

import (
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("grafana", remedy.System{Remove: grafanaRemoval, Infer: inferGrafana,
		Acts: remedy.ActsOn(newGrafana)})
}

// The variables the printed command reads: the token (the command names
// it, never holds one) and, when the artifact did not record its API
// address (a report holds findings, not artifacts), Grafana's address.
const (
	grafanaTokenVar = "GRAFANA_TOKEN"
	grafanaURLVar   = "GRAFANA_URL"
)

// grafanaRemoval deletes a dashboard or a Grafana-managed alert rule with
// the API, at the address the collector recorded.
func grafanaRemoval(r *remedy.Remedy, a *model.Artifact) {
	uid := a.Attr("uid")
	if uid == "" {
		uid = a.Name
	}
	if uid == "" {
		return
	}
	var name, what, path string
	switch a.Kind {
	case model.KindDashboard:
		name, what, path = remedy.DeleteDashboard, "delete Grafana dashboard ", "/api/dashboards/uid/"
	case model.KindAlert:
		name, what, path = remedy.DeleteAlertRule, "delete Grafana alert rule ", "/api/v1/provisioning/alert-rules/"
	default:
		return
	}
	target := "\"$" + grafanaURLVar + "\"" + remedy.Quote(path+url.PathEscape(uid))
	needs := []string{grafanaTokenVar, grafanaURLVar}
	if base := strings.TrimRight(a.Attr(model.AttrAPIURL), "/"); base != "" {
		target = remedy.Quote(base + path + url.PathEscape(uid))
		needs = needs[:1]
	}
	shell := "curl -fsS -X DELETE -H \"Authorization: Bearer $" + grafanaTokenVar + "\" " + target
	r.Actions = append(r.Actions, remedy.Action{Name: name, Step: model.StepNormalized, Resolves: true,
		Summary: what + a.Name, Shell: shell, Needs: needs})
}

// inferGrafana: the URI names the kind and the uid.
func inferGrafana(a *model.Artifact) {
	segs, ok := model.URISegments(a.URI, "grafana")
	if !ok || len(segs) != 2 {
		return
	}
	switch segs[0] {
	case "dashboards":
		a.Kind = model.KindDashboard
	case "alert-rules":
		a.Kind = model.KindAlert
	default:
		return
	}
	if a.Name == "" {
		a.Name = segs[1]
	}
	if a.Attributes["uid"] == "" {
		a.SetAttr("uid", segs[1])
	}
}
