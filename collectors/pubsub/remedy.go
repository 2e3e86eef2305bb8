package pubsub

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("pubsub", remedy.System{Examples: examples, Remove: pubsubRemoval, Infer: inferPubSub, Acts: remedy.ActsOn(newPubSub)})
}

func pubsubRemoval(r *remedy.Remedy, a *model.Artifact) {
	o, ok := ParsePubSub(a)
	if !ok {
		return
	}
	flags := []string{remedy.Flag("--project", o.Project)}
	if o.Snapshot {
		r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteSnapshot, Step: model.StepRetired, Resolves: true,
			Summary: "delete snapshot " + o.Name + " of project " + o.Project,
			Shell:   remedy.Command([]string{"gcloud", "pubsub", "snapshots", "delete"}, flags, o.Name)})
		return
	}
	if o.Subscription {
		r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteSubscription, Step: model.StepRetired, Resolves: true,
			Summary: "delete subscription " + o.Name + " of project " + o.Project,
			Shell:   remedy.Command([]string{"gcloud", "pubsub", "subscriptions", "delete"}, flags, o.Name)})
		if a.Attr(model.AttrMessages) != "" && a.Attr(model.AttrMessages) != "0" {
			r.Notes = append(r.Notes, "messages still waiting in the subscription are lost with it: drain or export them first if anyone needs them")
		}
		return
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteTopic, Step: model.StepRetired, Resolves: true,
		Summary: "delete topic " + o.Name + " of project " + o.Project,
		Shell:   remedy.Command([]string{"gcloud", "pubsub", "topics", "delete"}, flags, o.Name)})
	r.Notes = append(r.Notes, "deleting a topic leaves its subscriptions detached (topic _deleted-topic_): delete them too")
}

// inferPubSub: a snapshot's URI names it (topics and subscriptions take
// their kind from the rule).
func inferPubSub(a *model.Artifact) {
	if o, ok := ParsePubSub(a); ok && o.Snapshot {
		a.Kind, a.Name = model.KindCheckpoint, o.Name
		a.SetAttr(model.AttrCheckpointType, "snapshot")
	}
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"pubsub-sub": {Kind: model.KindSubscription, System: "pubsub", Source: "events", State: model.StateActive,
		URI: "pubsub://shop-analytics/subscriptions/bf-1234-retries", Name: "bf-1234-retries", Attributes: model.Attrs(model.AttrMessages, "0")},
}
