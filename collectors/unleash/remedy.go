package unleash

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("unleash", remedy.System{Remove: flagRemoval, Infer: inferUnleash,
		Acts: remedy.ActsOn(newActor)})
}

// archiveFlagCommand is the curl call that archives a flag through the
// Admin API the flag was read from (or $UNLEASH_URL when unknown). The
// token stays in the environment: the command names the variable only.
func archiveFlagCommand(a *model.Artifact, project string) (shell string, needs []string) {
	target, needs := remedy.APITarget(a, flagPath(project, a.Name), unleashURLVar, "the Unleash address")
	return "curl -fsS -X DELETE " + unleashAuth + " " + target, append([]string{unleashTokenVar}, needs...)
}

// The variables the command reads: the admin token, and the address
// when the artifact did not record it.
const (
	unleashTokenVar = "UNLEASH_TOKEN"
	unleashURLVar   = "UNLEASH_URL"
)

// unleashAuth sends the admin token from $UNLEASH_TOKEN alone, as the
// Admin API takes it.
const unleashAuth = `-H "Authorization: ${UNLEASH_TOKEN:?set UNLEASH_TOKEN to an Unleash admin API token}"`

func flagProject(a *model.Artifact) string {
	if p := a.Attr(model.AttrProject); p != "" {
		return p
	}
	p, _, _ := ParseUnleashFlag(a.URI)
	return p
}

func flagRemoval(r *remedy.Remedy, a *model.Artifact) {
	project := flagProject(a)
	if a.Kind != model.KindFeatureFlag || a.Name == "" || project == "" || a.Attr(model.AttrArchived) == "true" {
		return
	}
	shell, needs := archiveFlagCommand(a, project)
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.ArchiveFlag, Step: model.StepNormalized, Resolves: true,
		Summary: "archive flag " + a.Name + " in project " + project, Shell: shell, Needs: needs})
}

// inferUnleash: a flag's URI names its project and name.
func inferUnleash(a *model.Artifact) {
	if project, name, ok := ParseUnleashFlag(a.URI); ok {
		a.Kind, a.Name = model.KindFeatureFlag, name
		if a.Attr(model.AttrProject) == "" {
			a.SetAttr(model.AttrProject, project)
		}
	}
}
