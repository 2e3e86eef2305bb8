package pushgateway

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// DeleteMetricGroup cannot be undone: it runs only when fix.allow names it.
const DeleteMetricGroup = "delete_metric_group"

func init() {
	remedy.RegisterSystem("pushgateway", remedy.System{Remove: groupRemoval, Infer: inferGroup,
		Actions: map[string]bool{DeleteMetricGroup: false}, Acts: remedy.ActsOn(newActor)})
}

// groupRemoval: curl deletes the group from the Pushgateway it was read
// from, else $PUSHGATEWAY_URL; a login goes in curl's .netrc, never here.
func groupRemoval(r *remedy.Remedy, a *model.Artifact) {
	key, ok := keyPathOf(a.URI)
	if a.Kind != model.KindCheckpoint || !ok {
		return
	}
	path := "/metrics" + key
	target, needs := remedy.APITarget(a, path, "PUSHGATEWAY_URL", "the Pushgateway address")
	r.Actions = append(r.Actions, remedy.Action{Name: DeleteMetricGroup, Step: model.StepRetired, Resolves: true,
		Summary: "delete metric group " + key[1:] + " from the Pushgateway", Shell: "curl -fsS -X DELETE " + target, Needs: needs})
}

// inferGroup: a group's URI holds its whole grouping key.
func inferGroup(a *model.Artifact) {
	if key, ok := keyPathOf(a.URI); ok {
		a.Kind, a.Name = model.KindCheckpoint, key[1:]
	}
}
