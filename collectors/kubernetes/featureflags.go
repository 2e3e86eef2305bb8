package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/bfaudit/bfaudit/collectors/flagd"
	"github.com/bfaudit/bfaudit/internal/kubeclient"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FeatureFlagGVR is the OpenFeature Operator's FeatureFlag resource: its
// spec.flagSpec holds flags in flagd's shape.
var FeatureFlagGVR = schema.GroupVersionResource{Group: "core.openfeature.dev", Version: "v1beta1", Resource: "featureflags"}

// AttrResourceFlags is the number of flags the FeatureFlag resource holds:
// the remedy deletes the resource only when its one flag is this one.
const AttrResourceFlags = "featureflag_flags"

// call makes one call with the collector's timeout, retrying the API
// server's throttling and transient failures under the policy.
func (c *Kubernetes) call(ctx context.Context, do func(context.Context) error) error {
	return remote.Retry(ctx, c.Retry, func() error {
		callCtx, cancel := context.WithTimeout(ctx, c.Timeout)
		defer cancel()
		return kubeclient.Retryable(do(callCtx))
	})
}

// listFeatureFlags lists the FeatureFlag resources of a namespace (all
// when ns is empty), narrowed by label_selector only: a flag inside may
// be tied by its own metadata or name.
func (c *Kubernetes) listFeatureFlags(ctx context.Context, ns string) ([]unstructured.Unstructured, error) {
	items, err := listAll(ctx, c, func(ctx context.Context, opts metav1.ListOptions) ([]unstructured.Unstructured, metav1.ListMeta, error) {
		l, err := c.Dynamic.Resource(FeatureFlagGVR).Namespace(ns).List(ctx, opts)
		if err != nil {
			return nil, metav1.ListMeta{}, err
		}
		if l == nil {
			return nil, metav1.ListMeta{}, errors.New("the answer is not a Kubernetes list")
		}
		return l.Items, metav1.ListMeta{ResourceVersion: l.GetResourceVersion(), Continue: l.GetContinue()}, nil
	}, c.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("list featureflags: %w", err)
	}
	for i := range items {
		m := metav1.ObjectMeta{Name: items[i].GetName(), Namespace: items[i].GetNamespace()}
		if err := inNamespace(ns, &m); err != nil {
			return nil, fmt.Errorf("list featureflags: %w", err)
		}
		items[i].SetNamespace(m.Namespace)
	}
	return items, nil
}

// featureFlagArtifacts reads one FeatureFlag resource: each flag in its
// spec.flagSpec tied to a backfill, by its own metadata or name or by the
// resource's labels, annotations or name, is a feature_flag artifact. The
// unit of what cannot be read, and the scope of its flags, is the
// resource (<namespace>/<name>), below its namespace. read is told how
// many flags the resource holds, and how many of them could not be read.
func (c *Kubernetes) featureFlagArtifacts(o *unstructured.Unstructured, read func(n, partial int)) ([]model.Artifact, []error) {
	ns, name := o.GetNamespace(), o.GetName()
	where := fmt.Sprintf("kubernetes %s: FeatureFlag %s/%s: spec.flagSpec", c.authority(), ns, name)
	spec, found, err := unstructured.NestedFieldNoCopy(o.Object, "spec", "flagSpec")
	if err != nil || !found {
		return nil, []error{fmt.Errorf("%s: missing or not a map", where)}
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, []error{fmt.Errorf("%s: %v", where, err)}
	}
	doc, errs, fatal := flagd.Parse(where, raw, false)
	if fatal != nil {
		return nil, []error{fatal}
	}
	read(len(doc.Flags)+len(errs), len(errs))
	holder := map[string]string{}
	for k, v := range o.GetAnnotations() {
		holder[k] = v
	}
	for k, v := range o.GetLabels() {
		holder[k] = v
	}
	resourceURI := c.uri(ns, FeatureFlagGVR.Resource, name)
	var out []model.Artifact
	for _, fl := range doc.Flags {
		uri := c.flagURI(ns, name, fl.Name)
		id, how, ok := c.env.Selector.Match(uri, fl.Name, fl.Labels())
		if !ok {
			for _, k := range c.LabelKeys {
				if v := o.GetLabels()[k]; v != "" {
					id, how, ok = v, "label", true
					break
				}
			}
		}
		if !ok {
			id, how, ok = c.env.Selector.Match(resourceURI, name, holder)
		}
		if !ok {
			continue
		}
		a := fl.Artifact("kubernetes", uri, model.JoinScope(ns, name))
		a.BackfillID, a.Correlation = id, how
		a.CreatedAt = model.At(o.GetCreationTimestamp().Time.UTC())
		labels := map[string]string{}
		for k, v := range o.GetLabels() {
			labels[k] = v
		}
		for k, v := range fl.Metadata {
			labels[k] = v
		}
		if len(labels) > 0 {
			a.Labels = model.TagsOf(labels)
		}
		if a.Owner == "" && c.OwnerLabel != "" {
			a.Owner = holder[c.OwnerLabel]
		}
		a.SetAttr(AttrResourceFlags, strconv.Itoa(len(doc.Flags)+len(errs)))
		// A keep annotation on the FeatureFlag resource keeps its flags.
		keepFromAnnotations(&a, o.GetAnnotations())
		out = append(out, a)
	}
	return out, errs
}
