package rabbitmq

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a queue's or exchange's URI, the commands
// and the fix action read back to the same vhost and name, whatever they
// and the source hold (the default vhost "/" among them); an object
// without a name is never read as one.
func TestURIRoundTrip(t *testing.T) {
	names := append([]string{"/"}, remedytest.HostileNames...)
	for i, name := range names {
		vhost := names[(i+1)%len(names)]
		r := &RabbitMQ{}
		r.env.Source = names[(i+2)%len(names)]
		for _, want := range []RabbitObject{{Vhost: vhost, Name: name}, {Vhost: vhost, Exchange: true, Name: name}} {
			kind := partQueue
			if want.Exchange {
				kind = partExchange
			}
			uri := r.uri(vhost, kind, name)
			got, ok := ParseRabbitMQ(&model.Artifact{URI: uri})
			if ok != (name != "") || ok && got != want {
				t.Errorf("%q read back as %+v (%v), want %+v", uri, got, ok, want)
			}
		}
	}
}
