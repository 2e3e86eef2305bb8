package gcs

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("gcs", remedy.System{Remove: gcsRemoval, Infer: inferGCS, Acts: remedy.ActsOn(newGCS)})
}

func gcsRemoval(r *remedy.Remedy, a *model.Artifact) {
	o, ok := ParseGCS(a)
	if !ok {
		return
	}
	words := []string{"gcloud", "storage", "rm"}
	what := "delete object " + o.URL()
	if o.Folder() {
		words = append(words, "--recursive")
		what = "delete every object under " + o.URL()
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteObjects, Step: model.StepRetired, Resolves: true,
		Summary: what + " (checkpoint state)", Shell: remedy.Command(words, nil, o.URL())})
	r.Notes = append(r.Notes, "record the final processed range and the replay id in the decision record's checkpoint (checkpoint: {final_range, replay_id, location}) first: "+
		"the checkpoint is the only trace of where the replay stopped")
	if a.Attr(model.AttrHolds) == "true" {
		r.Notes = append(r.Notes, "objects under a hold (event-based or temporary) or a locked retention policy cannot be deleted until the hold is released or the retention ends")
	}
	if strings.ContainsAny(o.Path, "*?[]") {
		r.Notes = append(r.Notes, "the path holds wildcard characters (* ? [ ]) that gcloud storage expands: check what it matches before running it")
	}
}

// inferGCS: the URI names the bucket and folder of a checkpoint.
func inferGCS(a *model.Artifact) {
	if o, ok := ParseGCS(a); ok {
		a.Kind, a.Name = model.KindCheckpoint, o.URL()
		if a.Attr(model.AttrCheckpointType) == "" {
			a.SetAttr(model.AttrCheckpointType, "object")
		}
	}
}
