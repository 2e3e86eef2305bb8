package kafka

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("kafka", remedy.System{Examples: examples, Remove: kafkaRemoval, Infer: inferKafka, Acts: remedy.ActsOn(newKafka)})
}

// kafkaBootstrapVar is what the command reads when the artifact does not
// say which broker it came from (a finding read back from a report): the
// shell stops with the message until the variable is set.
const kafkaBootstrapVar = `"${KAFKA_BOOTSTRAP:?set KAFKA_BOOTSTRAP to a broker of the cluster}"`

func kafkaRemoval(r *remedy.Remedy, a *model.Artifact) {
	g, ok := ParseKafka(a)
	if !ok {
		return
	}
	bootstrap, needs := kafkaBootstrapVar, []string{"KAFKA_BOOTSTRAP"}
	if b := a.Attr(AttrBootstrap); b != "" {
		bootstrap, needs = remedy.Quote(b), nil
	}
	// A group name starting with '-' could be read as an option: it is
	// then glued to its option (--group=-name), which the tool's parser
	// reads as the value.
	group := []string{"--group", remedy.Quote(g.Group)}
	if strings.HasPrefix(g.Group, "-") {
		group = []string{remedy.Flag("--group", g.Group)}
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteGroup, Step: model.StepRetired, Resolves: true,
		Summary: "delete consumer group " + g.Group + " of Kafka cluster " + g.Cluster,
		Shell:   strings.Join(append([]string{"kafka-consumer-groups", "--bootstrap-server", bootstrap, "--delete"}, group...), " "), Needs: needs})
	note := "the group's committed offsets are lost with it: record them (the artifact's offsets) in the decision record's checkpoint (final_range, replay_id, location) first"
	if o := a.Attr(model.AttrOffsets); o != "" {
		note += "; at the audit they were " + o
	}
	r.Notes = append(r.Notes, note)
	if m := a.Attr(model.AttrMembers); m != "" && m != "0" {
		r.Notes = append(r.Notes, "the group has "+m+" member(s): a consumer still runs in it; stop it first (Kafka refuses to delete a group with members)")
	}
}

// inferKafka: a consumer group's URI names it.
func inferKafka(a *model.Artifact) {
	if g, ok := ParseKafka(a); ok {
		a.Kind, a.Name = model.KindCheckpoint, g.Group
		a.SetAttr(model.AttrCheckpointType, CheckpointConsumerGroup)
	}
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"kafka-group": {Kind: model.KindCheckpoint, System: "kafka", Source: "events", State: model.StateActive,
		URI: "kafka://events/groups/bf_1234_replay", Name: "bf_1234_replay",
		Attributes: model.Attrs(model.AttrCheckpointType, "consumer_group", model.AttrMembers, "0", model.AttrLag, "1200000",
			model.AttrOffsets, "refunds/0=81234,refunds/1=80991", "bootstrap", "kafka-1.internal:9092")},
}
