package rabbitmq

import (
	"encoding/json"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// Keep arguments, as the management API lists a queue's arguments.
func TestKeepArguments(t *testing.T) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal([]byte(`{"x-backfill-id":"BF-7","x-expires":3600000,
		"x-bfaudit-keep-until":"2027-01-31","x-bfaudit-keep-reason":"replays drain into it until the audit"}`), &args); err != nil {
		t.Fatal(err)
	}
	r := &RabbitMQ{}
	a := r.exchangeArtifact(vhostName{"/", "bf-7-x"}, exchange{Type: "topic"}, "rabbitmq://s/%2F/exchanges/bf-7-x", argumentLabels(args), match{id: "BF-7", how: "label"}, nil)
	if a.Attr(model.AttrKeepUntil) != "2027-01-31" || a.Attr(model.AttrKeepReason) != "replays drain into it until the audit" {
		t.Errorf("keep attributes %v", a.Attributes)
	}
	b := r.exchangeArtifact(vhostName{"/", "bf-8-x"}, exchange{Type: "topic"}, "rabbitmq://s/%2F/exchanges/bf-8-x", map[string]string{"x-backfill-id": "BF-8"}, match{id: "BF-8", how: "label"}, nil)
	if b.HasKeep() {
		t.Errorf("no keep argument, yet %v", b.Attributes)
	}
}
