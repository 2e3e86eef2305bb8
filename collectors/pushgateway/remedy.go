package pushgateway

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("pushgateway", remedy.System{Remove: groupRemoval, Infer: inferGroup, Acts: remedy.ActsOn(newActor)})
}

// urlVar is the address the command reads when the artifact did not
// record it (a finding read back from a report): the shell stops, saying
// so, until it is set.
const urlVar = "PUSHGATEWAY_URL"

// groupRemoval is the curl call that deletes the group from the
// Pushgateway it was read from. A Pushgateway behind a login takes
// curl's own options for it (a .netrc, -u), never a secret in the text.
func groupRemoval(r *remedy.Remedy, a *model.Artifact) {
	labels, ok := parseGroupURI(a.URI)
	if a.Kind != model.KindCheckpoint || !ok {
		return
	}
	path := groupPath(labels)
	target, needs := `"${`+urlVar+`:?set `+urlVar+` to the Pushgateway address}"`+remedy.Quote(path), []string{urlVar}
	if u := strings.TrimRight(a.Attr(model.AttrAPIURL), "/"); u != "" {
		target, needs = remedy.Quote(u+path), nil
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteMetricGroup, Step: model.StepRetired, Resolves: true,
		Summary: "delete metric group " + groupName(labels) + " from the Pushgateway", Shell: "curl -fsS -X DELETE " + target, Needs: needs})
}

// inferGroup: a group's URI holds its whole grouping key.
func inferGroup(a *model.Artifact) {
	if labels, ok := parseGroupURI(a.URI); ok {
		a.Kind, a.Name = model.KindCheckpoint, groupName(labels)
	}
}
