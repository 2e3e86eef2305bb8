package alertmanager

import (
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("alertmanager", remedy.System{Examples: examples, Remove: silenceRemoval, Bound: silenceBound, Infer: inferAlertmanager,
		Acts: remedy.ActsOn(newActor)})
}

// silenceCommand is the amtool command that expires a silence, pointed at
// the Alertmanager the silence was read from when known.
func silenceCommand(a *model.Artifact) string {
	var flags []string
	if u := a.Attr(model.AttrAPIURL); u != "" {
		flags = append(flags, remedy.Flag("--alertmanager.url", u))
	}
	return remedy.Command([]string{"amtool"}, flags, "silence", "expire", a.Name)
}

func silenceRemoval(r *remedy.Remedy, a *model.Artifact) {
	if a.Kind != model.KindSilence || a.Name == "" {
		return
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.ExpireSilence, Step: model.StepNormalized, Resolves: true,
		Summary: "expire silence " + a.Name, Shell: silenceCommand(a)})
}

// splitMatchers splits a silence's matchers as the alertmanager collector
// writes them, {name="v", name=~"re"}, into one argument per matcher, as
// amtool silence add takes them (it refuses the braces); ok is false for
// text it cannot read.
func splitMatchers(text string) ([]string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "{")
	if !ok {
		return nil, false
	}
	rest, ok = strings.CutSuffix(rest, "}")
	if !ok {
		return nil, false
	}
	var out []string
	for rest != "" {
		i := strings.IndexAny(rest, "=!")
		if i <= 0 {
			return nil, false
		}
		name, after := rest[:i], rest[i:]
		op := ""
		for _, o := range []string{"=~", "!~", "!=", "="} {
			if strings.HasPrefix(after, o) {
				op = o
				break
			}
		}
		if op == "" {
			return nil, false
		}
		q, err := strconv.QuotedPrefix(after[len(op):])
		if err != nil {
			return nil, false
		}
		out = append(out, name+op+q)
		rest = strings.TrimPrefix(after[len(op)+len(q):], ", ")
	}
	return out, len(out) > 0
}

// inferAlertmanager: a silence's URI names it.
func inferAlertmanager(a *model.Artifact) {
	if id, ok := parseSilenceURI(a.URI); ok {
		a.Kind, a.Name = model.KindSilence, id
	}
}

// silenceBound recreates the silence to end at end (the plan's expiry),
// then expires the old one. silence add's own flags go after the
// subcommand (amtool refuses them before it).
func silenceBound(a *model.Artifact, end string) (template, what string) {
	matchers, ok := splitMatchers(a.Attr(model.AttrMatchers))
	if !ok {
		matchers = []string{"TODO-matchers"}
	}
	parts := []string{"amtool"}
	if u := a.Attr(model.AttrAPIURL); u != "" {
		parts = append(parts, remedy.Flag("--alertmanager.url", u))
	}
	parts = append(parts, "silence", "add", remedy.Flag("--end", end),
		remedy.Flag("--comment", "backfill "+string(model.ParseID(a.BackfillID))+", until its plan's expiry"))
	for _, m := range matchers {
		parts = append(parts, remedy.Quote(m))
	}
	return strings.Join(parts, " ") + "\n" + silenceCommand(a),
		", then expire the old one (or move the plan's expiry if the replay truly needs longer)."
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"silence": {Kind: model.KindSilence, System: "alertmanager", Source: "alertmanager", State: model.StateActive,
		URI: "alertmanager://alertmanager/silences/7d3c6e1a-4a3b-4f7e-9a55-0b9a1c2d3e4f", Name: "7d3c6e1a-4a3b-4f7e-9a55-0b9a1c2d3e4f",
		Attributes: model.Attrs(model.AttrAPIURL, "http://alertmanager:9093", model.AttrMatchers, `{alertname="RevenueLate", job="daily_revenue"}`)},
}
