package prometheus

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

// rulesAnswer is the envelope of GET /api/v1/rules. Groups is a pointer
// so that a missing or null list is told apart from an empty one.
type rulesAnswer struct {
	Status string `json:"status"`
	Data   *struct {
		Groups         *[]apiGroup `json:"groups"`
		GroupNextToken string      `json:"groupNextToken"`
	} `json:"data"`
}

type apiGroup struct {
	Name  string    `json:"name"`
	File  string    `json:"file"`
	Rules []apiRule `json:"rules"`
}

// apiRule is an alerting or a recording rule; Type tells them apart.
type apiRule struct {
	Type           string            `json:"type"`
	Name           string            `json:"name"`
	Query          string            `json:"query"`
	Duration       float64           `json:"duration"`
	Labels         map[string]string `json:"labels"`
	Annotations    map[string]string `json:"annotations"`
	State          string            `json:"state"`
	Health         string            `json:"health"`
	LastError      string            `json:"lastError"`
	LastEvaluation string            `json:"lastEvaluation"`
	Alerts         []struct {
		ActiveAt string `json:"activeAt"`
	} `json:"alerts"`
}

// listRules walks the rule listing, group_limit groups a page, under a
// remote.Pager: max_pages pages at most, and a server that hands back the
// same token or only groups already read is stopped with an error. A
// group is kept once (file and name).
func (p *Prometheus) listRules(ctx context.Context) ([]apiGroup, error) {
	var all []apiGroup
	seen := map[[2]string]bool{}
	pager := remote.Pager{What: "GET " + p.client.Base() + "/api/v1/rules", Max: p.MaxPages, MaxKey: "max_pages"}
	token := ""
	for page := 1; ; page++ {
		q := url.Values{"group_limit": {strconv.Itoa(p.GroupLimit)}, "exclude_alerts": {"true"}}
		if token != "" {
			q.Set("group_next_token", token)
		}
		var ans rulesAnswer
		if err := p.client.Get(ctx, "/api/v1/rules", q, &ans); err != nil {
			return all, err
		}
		if ans.Status != "success" || ans.Data == nil || ans.Data.Groups == nil {
			return all, fmt.Errorf("GET %s/api/v1/rules page %d: the answer is not a rule listing (no status success with data.groups)", p.client.Base(), page)
		}
		keys := make([]string, 0, len(*ans.Data.Groups))
		for _, g := range *ans.Data.Groups {
			k := [2]string{g.File, g.Name}
			keys = append(keys, g.File+"\x00"+g.Name)
			if !seen[k] {
				seen[k] = true
				all = append(all, g)
			}
		}
		token = ans.Data.GroupNextToken
		if err := pager.Next(token, keys...); err != nil {
			return all, err
		}
		if token == "" {
			return all, nil
		}
	}
}

// apiGroups turns the listing into groups; a group or rule the server
// described without the fields every rule has is an error at its group.
func (p *Prometheus) apiGroups(list []apiGroup, addErr func(scope string, err error)) []group {
	out := make([]group, 0, len(list))
	for _, ag := range list {
		g := group{file: ag.File, name: ag.Name, scope: model.JoinScope(scopeRules, orDash(ag.File), orDash(ag.Name))}
		g.uriPrefix = p.serverGroupURI(ag.File, ag.Name)
		if ag.Name == "" {
			addErr(g.scope, fmt.Errorf("prometheus source %s: GET %s/api/v1/rules: a group without a name", p.sourceName(), p.client.Base()))
			continue
		}
		for i, ar := range ag.Rules {
			r, err := ar.rule()
			if err != nil {
				addErr(g.scope, fmt.Errorf("prometheus source %s: GET %s/api/v1/rules: rule %d: %w", p.sourceName(), p.client.Base(), i+1, err))
				g.partial = true
				continue
			}
			g.rules = append(g.rules, r)
		}
		out = append(out, g)
	}
	return out
}

func (ar apiRule) rule() (rule, error) {
	if ar.Type != typeAlerting && ar.Type != typeRecording {
		return rule{}, fmt.Errorf("type %q is neither alerting nor recording", redact.Clip(ar.Type, 40))
	}
	if ar.Name == "" || ar.Query == "" {
		return rule{}, errors.New("a rule without a name or a query")
	}
	r := rule{kind: ar.Type, name: ar.Name, expr: ar.Query, labels: ar.Labels, annotations: ar.Annotations,
		state: ar.State, health: ar.Health, lastError: ar.LastError}
	if ar.Duration > 0 && ar.Duration < 1e9 {
		r.forDur = time.Duration(ar.Duration * float64(time.Second))
	}
	// A rule never evaluated reports the zero time; a time that does
	// not parse is left out rather than failing the group.
	if t, err := time.Parse(time.RFC3339Nano, ar.LastEvaluation); err == nil && t.Year() > 1 {
		r.lastEval = t.UTC()
	}
	for _, al := range ar.Alerts {
		if t, err := time.Parse(time.RFC3339Nano, al.ActiveAt); err == nil && (r.activeSince.IsZero() || t.Before(r.activeSince)) {
			r.activeSince = t.UTC()
		}
	}
	return r, nil
}

// scopeRules is the unit of the server's rule listing; each group is a
// unit under it (rules/<file>/<group>).
const scopeRules = "rules"

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
