package kubernetes

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a URI, the commands, the fix action and the
// inference from a finding read back to the same namespace, resource, name
// and flag, for every shape and whatever a flag's name holds; a flag
// without a name is never read as one. Namespaces and names are DNS names.
func TestURIRoundTrip(t *testing.T) {
	c := &Kubernetes{}
	c.env.Source = "prod-cluster"
	for _, ns := range []string{"default", "bf-1234"} {
		for _, name := range []string{"replay-orders", "a.b-1"} {
			for _, tc := range []struct {
				uri  string
				kind model.Kind
				want KubeObject
			}{
				{c.uri(ns, "cronjobs", name), model.KindSchedulerJob, KubeObject{Namespace: ns, Resource: "cronjobs", Name: name}},
				{c.uri(ns, "jobs", name), model.KindJobRun, KubeObject{Namespace: ns, Resource: "jobs", Name: name}},
			} {
				if got, ok := ParseKubernetes(&model.Artifact{Kind: tc.kind, URI: tc.uri}); !ok || got != tc.want {
					t.Errorf("%q read back as %+v (%v), want %+v", tc.uri, got, ok, tc.want)
				}
			}
			for _, flag := range remedytest.HostileNames {
				uri := c.flagURI(ns, name, flag)
				got, ok := ParseKubernetes(&model.Artifact{Kind: model.KindFeatureFlag, URI: uri})
				want := KubeObject{Namespace: ns, Resource: "featureflags", Name: name, Flag: flag}
				if ok != (flag != "") || ok && got != want {
					t.Errorf("%q read back as %+v (%v), want %+v", uri, got, ok, want)
				}
			}
		}
	}
}
