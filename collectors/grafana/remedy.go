package grafana

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("grafana", remedy.System{Examples: examples, Remove: grafanaRemoval, Infer: inferGrafana,
		Acts: remedy.ActsOn(newActor)})
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
	uid := objectUID(a)
	if uid == "" {
		return
	}
	var name, what string
	switch a.Kind {
	case model.KindDashboard:
		name, what = remedy.DeleteDashboard, "delete Grafana dashboard "
	case model.KindAlert:
		name, what = remedy.DeleteAlertRule, "delete Grafana alert rule "
	default:
		return
	}
	target, needs := remedy.APITarget(a, apiPath(a.Kind, uid), grafanaURLVar, "")
	shell := "curl -fsS -X DELETE -H \"Authorization: Bearer $" + grafanaTokenVar + "\" " + target
	r.Actions = append(r.Actions, remedy.Action{Name: name, Step: model.StepNormalized, Resolves: true,
		Summary: what + a.Name, Shell: shell, Needs: append([]string{grafanaTokenVar}, needs...)})
}

// inferGrafana: the URI names the kind and the uid.
func inferGrafana(a *model.Artifact) {
	kind, uid, ok := parseURI(a.URI)
	if !ok {
		return
	}
	a.Kind = kind
	if a.Name == "" {
		a.Name = uid
	}
	if a.Attributes.Get("uid") == "" {
		a.SetAttr(AttrUID, uid)
	}
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"grafana-dashboard": {Kind: model.KindDashboard, System: "grafana", Source: "grafana", State: model.StateActive,
		URI: "grafana://grafana/dashboards/bf-1234-replay", Name: "BF-1234 refund replay",
		Attributes: model.Attrs("uid", "bf-1234-replay", model.AttrTemporary, "true", model.AttrAPIURL, "https://grafana.example.com", model.AttrURL, "https://grafana.example.com/d/bf-1234-replay/bf-1234-refund-replay")},
	"grafana-reader": {Kind: model.KindDashboard, System: "grafana", Source: "grafana", State: model.StateActive,
		URI: "grafana://grafana/dashboards/rev-daily", Name: "Revenue daily",
		Attributes: model.Attrs(model.AttrURL, "https://grafana.example.com/d/rev-daily/revenue-daily",
			model.AttrReads, model.FormatReads([]model.Read{{Identifier: "revenue.bf_1234_refunds_tmp", BackfillID: "BF-1234", Where: `panel "Refunds by day"`}}))},
}
