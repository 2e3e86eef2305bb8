package remedy

import (
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

func init() {
	registerSystem("alertmanager", commands{remove: silenceRemoval, infer: inferAlertmanager})
}

// silenceCommand is the amtool command that expires a silence, pointed at
// the Alertmanager the silence was read from when known.
func silenceCommand(a *model.Artifact) string {
	var flags []string
	if u := a.Attr(model.AttrAPIURL); u != "" {
		flags = append(flags, Flag("--alertmanager.url", u))
	}
	return command([]string{"amtool"}, flags, "silence", "expire", a.Name)
}

func silenceRemoval(r *Remedy, a *model.Artifact) {
	if a.Kind != model.KindSilence || a.Name == "" {
		return
	}
	r.Actions = append(r.Actions, Action{Name: ExpireSilence, Step: model.StepNormalized, Resolves: true,
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
	if segs, ok := segments(a.URI, "alertmanager"); ok && len(segs) == 2 && segs[0] == "silences" {
		a.Kind, a.Name = model.KindSilence, segs[1]
	}
}
