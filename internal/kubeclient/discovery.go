package kubeclient

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Discovery is the part of client-go's discovery client the collectors
// use; *discovery.DiscoveryClient (through APIsDiscovery) and the fake
// implement it.
type Discovery interface {
	discovery.ServerGroupsInterfaceWithContext
	ServerResourcesForGroupVersionWithContext(ctx context.Context, groupVersion string) (*metav1.APIResourceList, error)
}

// APIsDiscovery is client-go's discovery client with the group list read
// from /apis as an object. client-go's ServerGroups reads it raw, which
// drops the Retry-After the guard moves into the error's Status (so a 429
// would be retried on the policy's backoff, not after the server's delay),
// and takes a 404 to /api and /apis (a proxy's) for "no groups".
func APIsDiscovery(d *discovery.DiscoveryClient) Discovery { return apisDiscovery{d} }

type apisDiscovery struct{ *discovery.DiscoveryClient }

// Dynamic builds from cfg (see Config and Bound) what reads an optional
// resource: the dynamic client that lists it and the discovery client
// (APIsDiscovery) that says whether the cluster serves it.
func Dynamic(cfg *rest.Config) (dynamic.Interface, Discovery, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("build a dynamic client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("build a discovery client: %w", err)
	}
	return dyn, APIsDiscovery(disc), nil
}

func (d apisDiscovery) ServerGroupsWithContext(ctx context.Context) (*metav1.APIGroupList, error) {
	var groups metav1.APIGroupList
	if err := d.RESTClient().Get().AbsPath("/apis").Do(ctx).Into(&groups); err != nil {
		return nil, err
	}
	return &groups, nil
}

// Serves asks discovery whether the cluster serves an optional resource (a
// CRD such as prometheusrules or featureflags), each discovery request made
// through call (the caller's deadline and retries). The group list comes
// first: an API server always lists its groups (apps, batch...), so an
// answer without any is an error, not "no CRD"; and once the group is
// listed, a failing resource list is an error too, never "not served".
func Serves(ctx context.Context, d Discovery, gvr schema.GroupVersionResource, call func(context.Context, func(context.Context) error) error) (bool, error) {
	var groups *metav1.APIGroupList
	if err := call(ctx, func(ctx context.Context) (err error) {
		groups, err = d.ServerGroupsWithContext(ctx)
		return err
	}); err != nil {
		return false, err
	}
	if groups == nil || len(groups.Groups) == 0 {
		return false, errors.New("the server lists no API groups: not a Kubernetes API server")
	}
	gv := gvr.GroupVersion().String()
	listed := false
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			listed = listed || v.GroupVersion == gv
		}
	}
	if !listed {
		return false, nil
	}
	var resources *metav1.APIResourceList
	if err := call(ctx, func(ctx context.Context) (err error) {
		resources, err = d.ServerResourcesForGroupVersionWithContext(ctx, gv)
		return err
	}); err != nil {
		return false, err
	}
	for _, r := range resources.APIResources {
		if r.Name == gvr.Resource {
			return true, nil
		}
	}
	return false, nil
}
