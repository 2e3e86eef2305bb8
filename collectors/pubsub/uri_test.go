package pubsub

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// What the collector writes as a topic's, subscription's or snapshot's
// URI, the commands, the fix action (which names the object as the API
// does) and the inference from a finding read back to the same object.
// Project ids and Pub/Sub names cannot hold '/', '?' or '#'; a name may
// hold '%', '+', '~' and '.'.
func TestURIRoundTrip(t *testing.T) {
	for _, project := range []string{"p-one", "shop-analytics-2"} {
		for _, name := range []string{"bf-1234-retry", "a.b_c~d+e%41"} {
			for _, tc := range []struct {
				uri  string
				want PubSubObject
			}{
				{objectURI(project, partTopics, name), PubSubObject{Project: project, Name: name}},
				{objectURI(project, partSubscriptions, name), PubSubObject{Project: project, Subscription: true, Name: name}},
				{objectURI(project, partSnapshots, name), PubSubObject{Project: project, Snapshot: true, Name: name}},
			} {
				got, ok := ParsePubSub(&model.Artifact{URI: tc.uri})
				if !ok || got != tc.want || objectURI(got.Project, got.collection(), got.Name) != tc.uri {
					t.Errorf("%q read back as %+v (%v), want %+v", tc.uri, got, ok, tc.want)
				}
			}
		}
	}
}
