package s3

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("s3", remedy.System{Remove: removal, Infer: infer,
		Acts: remedy.ActsOn(func(c *Collector) (remedy.Actor, error) { return actor{c}, nil })})
}

// removal is `aws s3 rm` of the folder (--recursive) or the single
// object, in the bucket's region, at the endpoint the source read when it
// has one.
func removal(r *remedy.Remedy, a *model.Artifact) {
	o, ok := ParseS3(a)
	if !ok {
		return
	}
	var flags []string
	what := "delete object " + o.URL()
	if o.Folder() {
		flags = append(flags, "--recursive")
		what = "delete every object under " + o.URL()
	}
	flags = append(flags, remedy.Flag("--region", o.Region))
	if api := a.Attr(model.AttrAPIURL); api != "" {
		flags = append(flags, remedy.Flag("--endpoint-url", api))
	}
	kind := "temporary data"
	if kindOf(o.Path) == model.KindCheckpoint {
		kind = "checkpoint state"
		r.Notes = append(r.Notes, "record the final processed range and the replay id in the decision record's checkpoint (checkpoint: {final_range, replay_id, location}) first: "+
			"the checkpoint is the only trace of where the replay stopped")
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteObjects, Step: model.StepRetired, Resolves: true,
		Summary: what + " (" + kind + ")", Shell: remedy.Command([]string{"aws", "s3", "rm"}, flags, o.URL())})
	r.Notes = append(r.Notes, "run it with credentials of account "+o.Account+", the account the audit read the bucket through")
	if a.Attr(model.AttrHolds) == "true" {
		note := "the bucket has object lock: retained objects and objects on legal hold cannot be deleted (aws s3 rm only adds delete markers to them)"
		if until := a.Attr(AttrRetainUntil); until != "" {
			note += "; its default retention keeps the last object written until " + until
		}
		r.Notes = append(r.Notes, note)
	}
}

// infer: the URI names the account, region, bucket and folder, and the
// folder's path its kind.
func infer(a *model.Artifact) {
	if o, ok := ParseS3(a); ok {
		a.Name = o.URL()
		setKind(a, o.Path)
	}
}
