package sqs

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// PurgeQueue drops every message of a queue. It cannot be undone: it runs
// only when fix.allow names it, and only a queue that held messages at the
// audit is purged before it is deleted.
const PurgeQueue = "purge_queue"

func init() {
	remedy.RegisterSystem("sqs", remedy.System{Remove: removal, Infer: infer,
		Actions: map[string]bool{PurgeQueue: false}, Acts: remedy.ActsOn(newActor)})
	// A finding read back from a report names a topic or subscription by
	// its sns:// URI alone: the same commands, which only an sqs source
	// applies.
	remedy.RegisterSystem("sns", remedy.System{Remove: removal, Infer: infer})
}

// removal prints the aws CLI commands: delete a queue (purged first when
// it held messages), unsubscribe a subscription, delete a topic. Each
// runs with credentials of the object's account.
func removal(r *remedy.Remedy, a *model.Artifact) {
	o, ok := Parse(a)
	if !ok {
		return
	}
	in := " (account " + o.Account + ", " + o.Region + ")"
	switch {
	case o.Queue != "":
		url := a.Attr(AttrQueueURL)
		if url == "" {
			url = o.QueueURL()
		}
		flags := []string{remedy.Flag("--region", o.Region), remedy.Flag("--queue-url", url)}
		if n := a.Attr(model.AttrMessages); n != "" && n != "0" {
			r.Actions = append(r.Actions, remedy.Action{Name: PurgeQueue, Step: model.StepRetired,
				Summary: "purge the " + n + " messages of queue " + o.Queue + in,
				Shell:   remedy.Command([]string{"aws", "sqs", "purge-queue"}, flags)})
			r.Notes = append(r.Notes, "the queue's messages are lost with the purge: read or redrive them first if anyone needs them; "+
				"SQS takes up to 60 s to purge, and bfaudit deletes the queue only once it reads empty")
		}
		r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteQueue, Step: model.StepRetired, Resolves: true,
			Summary: "delete queue " + o.Queue + in,
			Shell:   remedy.Command([]string{"aws", "sqs", "delete-queue"}, flags)})
	case o.Subscription != "":
		arn := a.Attr(AttrSubscriptionARN)
		region := o.Region
		if p, ok := arnParts(arn); ok {
			region = p[3] // the topic's region, where the subscription lives
		} else {
			arn = o.SubscriptionARN()
		}
		r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteSubscription, Step: model.StepRetired, Resolves: true,
			Summary: "unsubscribe subscription " + o.Subscription + " of topic " + o.Topic + in,
			Shell: remedy.Command([]string{"aws", "sns", "unsubscribe"},
				[]string{remedy.Flag("--region", region), remedy.Flag("--subscription-arn", arn)})})
	default:
		// Late: after the step's unsubscribes, which a deleted topic's
		// subscriptions would no longer answer.
		r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteTopic, Step: model.StepRetired, Resolves: true, Late: true,
			Summary: "delete topic " + o.Topic + in,
			Shell: remedy.Command([]string{"aws", "sns", "delete-topic"},
				[]string{remedy.Flag("--region", o.Region), remedy.Flag("--topic-arn", o.TopicARN())})})
		r.Notes = append(r.Notes, "deleting a topic deletes its subscriptions too")
	}
}

// infer: a subscription's URI names its topic and id (the rule gives a
// queue's or a topic's kind).
func infer(a *model.Artifact) {
	o, ok := Parse(a)
	switch {
	case !ok:
	case o.Subscription != "":
		a.Kind, a.Name = model.KindSubscription, o.Topic+":"+o.Subscription
	case o.Queue != "":
		a.Kind, a.Name = model.KindQueue, o.Queue
	default:
		a.Kind, a.Name = model.KindQueue, o.Topic
	}
}
