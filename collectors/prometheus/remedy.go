package prometheus

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// Prometheus rules live in files (or PrometheusRule objects) bfaudit has no
// command to edit: their removal is said, not run.
func init() {
	remedy.RegisterSystem("prometheus", remedy.System{Examples: examples, Manual: prometheusManual})
}

// prometheusManual says which rule to delete from which group and file.
func prometheusManual(a *model.Artifact, step model.Step) *remedy.Human {
	where := a.Attr("file")
	if obj := a.Attr("prometheusrule"); obj != "" {
		where = "PrometheusRule " + obj
	}
	return &remedy.Human{Step: step, Where: where,
		What: fmt.Sprintf("Delete the rule %s from group %s of %s and reload Prometheus (POST /-/reload, or let the operator pick the PrometheusRule up).",
			a.NameOrURI(), remedy.OrDash(a.Attr("group")), remedy.OrDash(where))}
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"prom-alert": {Kind: model.KindAlert, System: "prometheus", Source: "prometheus", State: model.StateEnabled,
		URI: "prometheus://prometheus/rules/backfill.yml/bf-1234/alerting/RefundBackfillLag", Name: "RefundBackfillLag",
		Attributes: model.Attrs("group", "bf-1234", "file", "/etc/prometheus/rules/backfill.yml", model.AttrWatchesOnly, "true")},
}
