package prometheus

import (
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
	commonmodel "github.com/prometheus/common/model"
)

// Attributes of a rule besides the model's (expr, alert_state,
// watches_backfill, temporary).
const (
	AttrRuleType       = "rule_type" // alerting or recording
	AttrGroup          = "group"
	AttrFile           = "file"           // the rule file, as the server or the config names it
	AttrObject         = "prometheusrule" // namespace/name of the PrometheusRule it came from
	AttrFor            = "for"            // an alerting rule's pending duration
	AttrHealth         = "health"         // ok, err or unknown (server only)
	AttrLastError      = "last_error"
	AttrLastEvaluation = "last_evaluation" // RFC 3339 (server only)
	AttrActiveSince    = "active_since"    // earliest activeAt of its pending or firing alerts
	AttrExprError      = "expr_error"      // the expression did not parse here: watches_backfill unknown
	AttrOtherBackfills = model.AttrOtherBackfills
	maxExprCharacters  = 2000
)

// tie says which backfill a rule belongs to, trying in turn: its labels
// (backfill_id: bf-1234), the plans' declared assets, its name (each
// ":"-part of a recording rule's name), its annotations, the ids its
// expression selects, its group's name, and the labels and name of the
// PrometheusRule it came from.
func (p *Prometheus) tie(g group, r rule, uri string, w watched) (id, how string, others []string) {
	var ids []string
	add := func(v, by string) {
		if len(ids) == 0 && v != "" {
			how = by
		}
		ids = model.AddID(ids, v)
	}
	if v, ok := p.env.Selector.FromLabels(r.labels); ok {
		add(v, "label")
	}
	if v, ok := p.env.Selector.Assets[uri]; ok {
		add(v, "asset")
	}
	for _, part := range append([]string{r.name}, strings.Split(r.name, ":")...) {
		if v, ok := p.env.Selector.FromName(part); ok {
			add(v, "name")
			break
		}
	}
	if v, ok := p.env.Selector.FromLabels(r.annotations); ok {
		add(v, "annotation")
	}
	for _, v := range w.ids {
		add(v, "expression")
	}
	if v, ok := p.env.Selector.FromName(g.name); ok {
		add(v, "group")
	}
	if v, ok := p.env.Selector.FromLabels(g.objectLabels); ok {
		add(v, "object label")
	}
	if g.object != "" {
		if v, ok := p.env.Selector.FromName(g.object[strings.LastIndex(g.object, "/")+1:]); ok {
			add(v, "object name")
		}
	}
	if len(ids) == 0 {
		return "", "", nil
	}
	return ids[0], how, ids[1:]
}

// emit reports the rules of a group that are tied to a backfill. Two
// rules of one type and name in a group (a warning and a critical
// variant) are told apart by their order: the second is name#2.
func (p *Prometheus) emit(g group, add func(model.Artifact)) {
	count := map[string]int{}
	for _, r := range g.rules {
		key := r.kind + "/" + r.name
		count[key]++
		uri := ruleURI(g.uriPrefix, r.kind, r.name, count[key])
		w := p.watch(r.expr)
		id, how, others := p.tie(g, r, uri, w)
		if id == "" {
			continue
		}
		add(p.artifact(g, r, uri, w, id, how, others))
	}
}

func (p *Prometheus) artifact(g group, r rule, uri string, w watched, id, how string, others []string) model.Artifact {
	a := model.Artifact{Kind: model.KindAlert, System: "prometheus", Scope: g.scope, URI: uri, Name: r.name,
		BackfillID: id, Correlation: how, Labels: model.TagsOf(r.labels), State: model.StateEnabled}
	a.Owner = firstOf(r.labels["owner"], r.annotations["owner"])
	a.SetAttr(AttrRuleType, r.kind)
	a.SetAttr(model.AttrExpr, redact.Clip(r.expr, maxExprCharacters))
	a.SetAttr(model.AttrWatchesOnly, fmt.Sprint(w.only))
	if w.err != nil {
		a.SetAttr(AttrExprError, redact.Clip(w.err.Error(), 300))
	}
	if isTrue(r.labels["temporary"]) || isTrue(r.annotations["temporary"]) {
		a.SetAttr(model.AttrTemporary, "true")
	}
	a.SetAttr(AttrGroup, g.name)
	if g.file != "" { // a cluster's PrometheusRule has none
		a.SetAttr(AttrFile, g.file)
	}
	if g.object != "" {
		a.SetAttr(AttrObject, g.object)
	}
	if r.kind == typeAlerting && r.forDur > 0 {
		a.SetAttr(AttrFor, commonmodel.Duration(r.forDur).String())
	}
	set := func(k, v string) {
		if v != "" {
			a.SetAttr(k, redact.Clip(v, 300))
		}
	}
	set(model.AttrAlertState, r.state)
	set(AttrHealth, r.health)
	set(AttrLastError, r.lastError)
	if !r.lastEval.IsZero() {
		a.SetAttr(AttrLastEvaluation, r.lastEval.Format(time.RFC3339))
	}
	if !r.activeSince.IsZero() {
		a.SetAttr(AttrActiveSince, r.activeSince.Format(time.RFC3339))
	}
	if len(others) > 0 {
		a.SetAttr(AttrOtherBackfills, strings.Join(others, ","))
	}
	return a
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func isTrue(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }
