package kubernetes

import (
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built and read here only:
//
//	kubernetes://<source>/<namespace>/cronjobs/<name>             a CronJob
//	kubernetes://<source>/<namespace>/jobs/<name>                 a Job
//	kubernetes://<source>/<namespace>/featureflags/<name>         a FeatureFlag resource (matched by, not emitted)
//	kubernetes://<source>/<namespace>/featureflags/<name>#<flag>  one flag of an OpenFeature FeatureFlag resource
//
// Namespaces and names go in as they are (Kubernetes names cannot hold
// '/', '?', '#' or '%'); the flag is path-escaped.

func (c *Kubernetes) uri(ns, resource, name string) string {
	return "kubernetes://" + c.authority() + "/" + ns + "/" + resource + "/" + name
}

func (c *Kubernetes) flagURI(ns, name, flag string) string {
	return c.uri(ns, FeatureFlagGVR.Resource, name) + "#" + url.PathEscape(flag)
}

// KubeObject is a CronJob or Job, or one flag of an OpenFeature
// FeatureFlag resource, read from its URI.
type KubeObject struct {
	Namespace, Resource, Name string
	// Flag is the flag inside a FeatureFlag resource.
	Flag string
}

// ParseKubernetes reads a Kubernetes artifact.
func ParseKubernetes(a *model.Artifact) (KubeObject, bool) {
	o, ok := splitURI(a.URI)
	if !ok || o.Namespace == "" || o.Name == "" {
		return KubeObject{}, false
	}
	switch {
	case o.Resource == "cronjobs" && a.Kind == model.KindSchedulerJob:
	case o.Resource == "jobs" && (a.Kind == model.KindJobRun || a.Kind == model.KindSchedulerJob):
	case o.Resource == FeatureFlagGVR.Resource && a.Kind == model.KindFeatureFlag:
		if o.Flag == "" {
			return KubeObject{}, false
		}
	default:
		return KubeObject{}, false
	}
	return o, true
}

// splitURI reads <namespace>/<resource>/<name>, and the flag of a
// fragment ("" without one, or when it does not unescape).
func splitURI(uri string) (KubeObject, bool) {
	segs, ok := model.URISegments(uri, "kubernetes")
	if !ok || len(segs) != 3 {
		return KubeObject{}, false
	}
	o := KubeObject{Namespace: segs[0], Resource: segs[1], Name: segs[2]}
	if _, frag, ok := strings.Cut(uri, "#"); ok {
		o.Flag, _ = url.PathUnescape(frag)
	}
	return o, true
}
