package unleash

import (
	"sort"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a flag besides the model's.
const (
	AttrFlagType       = "flag_type"              // release, experiment, operational, kill-switch, permission
	AttrStale          = "stale"                  // "true" when Unleash marks the flag stale
	AttrStrategies     = "strategies"             // the names of its enabled strategies, sorted, comma-separated (read from the flag's detail)
	AttrDescription    = "description"            // its description, on one line, at most 500 characters
	AttrOtherBackfills = model.AttrOtherBackfills // further backfill ids its tags name
)

// ReplayPositionTag is the tag value prefix that records the position a
// flag held for the replay: a tag (of any type) valued
// replay-position:enabled or replay-position:disabled.
const ReplayPositionTag = "replay-position:"

// guardTagValue marks a flag as a side-effect guard whatever the tag's type.
const guardTagValue = "side-effect-guard"

// tiedFlag is a flag tied to a backfill, and how.
type tiedFlag struct {
	flag
	project    string
	uri        string
	backfillID string
	how        string   // label (its tag), asset, name or description
	others     []string // further backfill ids its tags name
	keepBy     string   // who added its keep tag, from the event log
}

// tie says which backfill a flag belongs to, through the shared
// selector: a tag of type tag_type (its value is the id), a plan's
// declared asset, the flag's name, then the words of its description.
func (u *Unleash) tie(projectID string, f flag) (tiedFlag, bool) {
	t := tiedFlag{flag: f, project: projectID, uri: flagURI(u.env.Source, projectID, f.Name)}
	var values []string
	for _, tg := range f.Tags {
		if tg.Type == u.TagType && tg.Value != "" {
			values = append(values, tg.Value)
		}
	}
	sort.Strings(values)
	var labels map[string]string
	if len(values) > 0 {
		labels = map[string]string{u.TagType: values[0]}
		for _, v := range values[1:] {
			if !model.SameID(v, values[0]) && !model.HasID(t.others, v) {
				t.others = append(t.others, v)
			}
		}
	}
	if id, how, ok := u.env.Selector.Match(t.uri, f.Name, labels); ok {
		t.backfillID, t.how = id, how
		return t, true
	}
	if id, ok := u.env.Selector.FromText(f.Description); ok {
		t.backfillID, t.how = id, "description"
		return t, true
	}
	return t, false
}

// maxDescriptionChars caps the description kept: free text shown in reports.
const maxDescriptionChars = 500

// artifact turns a tied flag into a feature_flag artifact. envType is the
// type of each environment from the environment listing; a flag's own
// environment type is used for one the listing lacks.
func (u *Unleash) artifact(t tiedFlag, envType map[string]string) model.Artifact {
	art := model.Artifact{
		Kind: model.KindFeatureFlag, System: "unleash", Scope: model.JoinScope(t.project, t.Name), URI: t.uri,
		Name: t.Name, BackfillID: t.backfillID, Correlation: t.how, Labels: model.TagsOf(tagLabels(t.Tags)),
		CreatedAt: model.At(t.created), LastUsedAt: model.At(t.lastSeen),
	}
	var on []string
	production := false
	for _, e := range t.Environments {
		if !e.Enabled {
			continue
		}
		on = append(on, e.Name)
		typ, ok := envType[e.Name]
		if !ok {
			typ = e.Type
		}
		production = production || strings.EqualFold(typ, "production")
	}
	sort.Strings(on)
	art.SetAttr(model.AttrProject, t.project)
	if base := u.apiURL(); base != "" {
		art.SetAttr(model.AttrAPIURL, base)
		art.SetAttr(model.AttrURL, base+featurePath(t.project, t.Name))
	}
	switch {
	case t.archived():
		art.State = model.StateDeleted
		art.SetAttr(model.AttrArchived, "true")
		art.SetAttr(model.AttrPosition, "disabled") // an archived flag is off for every client
	case len(on) > 0:
		art.State = model.StateEnabled
		art.SetAttr(model.AttrPosition, "enabled")
		art.SetAttr(model.AttrEnabledIn, strings.Join(on, ","))
		art.SetAttr(model.AttrProduction, strconv.FormatBool(production))
	default:
		art.State = model.StateDisabled
		art.SetAttr(model.AttrPosition, "disabled")
		art.SetAttr(model.AttrProduction, "false")
	}
	if t.Type != "" {
		art.SetAttr(AttrFlagType, clip(t.Type, 60))
	}
	art.SetAttr(AttrStale, strconv.FormatBool(t.Stale))
	if t.detailed {
		art.SetAttr(AttrStrategies, strategyNames(t.Environments))
	}
	if t.Description != "" {
		art.SetAttr(AttrDescription, clip(t.Description, maxDescriptionChars))
	}
	if t.CreatedBy != nil && t.CreatedBy.Name != "" {
		art.SetAttr(model.AttrCreatedBy, clip(t.CreatedBy.Name, 200))
	}
	if len(t.others) > 0 {
		art.SetAttr(AttrOtherBackfills, strings.Join(t.others, ","))
	}
	var keepUntil, keepReason string
	for _, tg := range t.Tags {
		// Keep tags: the type names the part, the value holds it. Who
		// added them is in the event log (readDetails reads it).
		switch tg.Type {
		case model.KeepUntilKey:
			keepUntil = tg.Value
		case model.KeepReasonKey:
			keepReason = tg.Value
		}
		if (u.GuardTagType != "" && tg.Type == u.GuardTagType) || tg.Value == guardTagValue {
			art.SetAttr(model.AttrGuard, "true")
		}
		if pos, ok := strings.CutPrefix(tg.Value, ReplayPositionTag); ok && (pos == "enabled" || pos == "disabled") {
			art.SetAttr(model.AttrReplayPosition, pos)
		}
	}
	art.SetKeep(clip(keepUntil, 60), clip(keepReason, 200), clip(t.keepBy, 200))
	return art
}

// keepUntilTag is the value of the flag's keep-until tag, "" without one.
func (f flag) keepUntilTag() string {
	for _, tg := range f.Tags {
		if tg.Type == model.KeepUntilKey {
			return tg.Value
		}
	}
	return ""
}

// apiURL is the base address of the Unleash read, or "" for an export.
func (u *Unleash) apiURL() string {
	if u.client == nil {
		return ""
	}
	return u.client.Base()
}

// tagLabels keeps a flag's tags as labels, type -> value; the values of
// a type with several tags are sorted and comma-separated.
func tagLabels(tags []tag) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	by := map[string][]string{}
	for _, tg := range tags {
		if tg.Type == "" {
			continue
		}
		by[tg.Type] = append(by[tg.Type], clip(tg.Value, 200))
	}
	out := make(map[string]string, len(by))
	for k, vs := range by {
		sort.Strings(vs)
		out[clip(k, 100)] = strings.Join(vs, ",")
	}
	return out
}

// strategyNames lists the distinct names of the enabled strategies of a
// flag's environments, sorted and comma-separated.
func strategyNames(envs []flagEnv) string {
	seen := map[string]bool{}
	var names []string
	for _, e := range envs {
		for _, s := range e.Strategies {
			if s.Disabled || s.Name == "" || seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			names = append(names, clip(s.Name, 100))
		}
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}
