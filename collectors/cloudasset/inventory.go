package cloudasset

import (
	"fmt"
	"sort"
	"strings"

	"cloud.google.com/go/asset/apiv1/assetpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"github.com/bfaudit/bfaudit/model"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// resource is one asset as found: its type, full resource name and its own
// JSON representation (what the service's get call returns), from a search
// result's versionedResources or an export's resource.data.
type resource struct {
	assetType string
	name      string
	data      []byte // nil when the answer did not carry it
}

// policy is the IAM policy set on one resource: a project or a dataset.
type policy struct {
	assetType string
	resource  string
	bindings  []*iampb.Binding
}

// inventory gathers what searches and files found, once each.
type inventory struct {
	resources map[string]resource
	policies  map[string]*policy
	// numbers maps project numbers to ids: exports name projects by number,
	// every URI uses the id.
	numbers map[string]string
	// errs are items that could not be read, at their units.
	errs []unitError
}

// unitError is a failure limited to one unit ("" for the whole source).
type unitError struct {
	unit string
	err  error
}

func newInventory() *inventory {
	return &inventory{resources: map[string]resource{}, policies: map[string]*policy{}, numbers: map[string]string{}}
}

func (inv *inventory) fail(unit string, err error) {
	inv.errs = append(inv.errs, unitError{unit, err})
}

// addResource keeps r; a second sighting of a name (a follow-up search
// finding it again) keeps the one that carries data.
func (inv *inventory) addResource(r resource) {
	if old, ok := inv.resources[r.name]; ok && old.data != nil {
		return
	}
	inv.resources[r.name] = r
}

// addPolicy merges bindings of the same resource: a search returns only the
// bindings that match its query, so two searches may each return some.
func (inv *inventory) addPolicy(p policy) {
	old, ok := inv.policies[p.resource]
	if !ok {
		cp := p
		inv.policies[p.resource] = &cp
		return
	}
	for _, b := range p.bindings {
		if !containsBinding(old.bindings, b) {
			old.bindings = append(old.bindings, b)
		}
	}
}

func containsBinding(bs []*iampb.Binding, b *iampb.Binding) bool {
	for _, o := range bs {
		if proto.Equal(o, b) {
			return true
		}
	}
	return false
}

// sortedResources lists the resources of one type in name order, so
// errors and artifacts come out the same way every run.
func (inv *inventory) sortedResources(assetType string) []resource {
	var out []resource
	for _, r := range inv.resources {
		if r.assetType == assetType {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (inv *inventory) sortedPolicies(assetType string) []*policy {
	var out []*policy
	for _, p := range inv.policies {
		if p.assetType == assetType {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].resource < out[j].resource })
	return out
}

// addSearchResult keeps one result of SearchAllResources. Its project
// field (projects/NUMBER) next to the id in its name teaches the number.
func (inv *inventory) addSearchResult(r *assetpb.ResourceSearchResult, origin string) {
	name := r.GetName()
	if _, err := parseName(name); err != nil {
		inv.fail("", fmt.Errorf("cloudasset: %s: a %s result: %w", origin, orUnknown(r.GetAssetType()), err))
		return
	}
	if id := projectID(name); id != "" {
		if num, ok := strings.CutPrefix(r.GetProject(), "projects/"); ok && num != "" {
			inv.numbers[num] = id
		}
	}
	data, err := versionedData(r.GetVersionedResources())
	if err != nil {
		inv.fail(unitOf(r.GetAssetType(), name), fmt.Errorf("cloudasset: %s: %s: %w", origin, name, err))
		return
	}
	inv.addResource(resource{assetType: r.GetAssetType(), name: name, data: data})
}

// addPolicyResult keeps one result of SearchAllIamPolicies.
func (inv *inventory) addPolicyResult(r *assetpb.IamPolicySearchResult, origin string) {
	if _, err := parseName(r.GetResource()); err != nil {
		inv.fail("", fmt.Errorf("cloudasset: %s: an IAM policy of a %s: %w", origin, orUnknown(r.GetAssetType()), err))
		return
	}
	inv.addPolicy(policy{assetType: r.GetAssetType(), resource: r.GetResource(), bindings: r.GetPolicy().GetBindings()})
}

// addExported keeps one asset of a `gcloud asset export` (or `gcloud asset
// list`): its resource, its IAM policy, or both.
func (inv *inventory) addExported(a *assetpb.Asset, origin string) {
	name := a.GetName()
	if _, err := parseName(name); err != nil {
		inv.fail("", fmt.Errorf("cloudasset: %s: a %s asset: %w", origin, orUnknown(a.GetAssetType()), err))
		return
	}
	if d := a.GetResource().GetData(); d != nil {
		data, err := protojson.Marshal(d)
		if err != nil {
			inv.fail(unitOf(a.GetAssetType(), name), fmt.Errorf("cloudasset: %s: %s: resource data: %w", origin, name, err))
			return
		}
		if a.GetAssetType() == typeProject {
			inv.learnProject(d)
		}
		inv.addResource(resource{assetType: a.GetAssetType(), name: name, data: data})
	}
	if p := a.GetIamPolicy(); p != nil {
		inv.addPolicy(policy{assetType: a.GetAssetType(), resource: name, bindings: p.GetBindings()})
	}
}

// learnProject reads a Project asset's number and id.
func (inv *inventory) learnProject(d *structpb.Struct) {
	id := d.GetFields()["projectId"].GetStringValue()
	num := d.GetFields()["projectNumber"].GetStringValue()
	if id != "" && num != "" {
		inv.numbers[num] = id
	}
}

// versionedData picks the resource's own representation; the first when
// there are several (a service between API versions lists both).
func versionedData(vs []*assetpb.VersionedResource) ([]byte, error) {
	for _, v := range vs {
		if v.GetResource() != nil {
			b, err := protojson.Marshal(v.GetResource())
			if err != nil {
				return nil, fmt.Errorf("versionedResources: %w", err)
			}
			return b, nil
		}
	}
	return nil, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "resource of unknown type"
	}
	return s
}

// fullName is a parsed full resource name:
// //bigquery.googleapis.com/projects/p/datasets/d -> service
// bigquery.googleapis.com, path [projects p datasets d].
type fullName struct {
	service string
	path    []string
}

// parseName reads a full resource name; every segment must be non-empty.
func parseName(name string) (fullName, error) {
	rest, ok := strings.CutPrefix(name, "//")
	if !ok {
		return fullName{}, fmt.Errorf("%q is not a full resource name (//service/path)", name)
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 {
		return fullName{}, fmt.Errorf("%q is not a full resource name (//service/path)", name)
	}
	for _, p := range parts {
		if p == "" {
			return fullName{}, fmt.Errorf("%q has an empty segment", name)
		}
	}
	return fullName{service: parts[0], path: parts[1:]}, nil
}

// segment returns the value after key in the path (projects -> p).
func (n fullName) segment(key string) string {
	for i := 0; i+1 < len(n.path); i += 2 {
		if n.path[i] == key {
			return n.path[i+1]
		}
	}
	return ""
}

// projectID returns the project a full name lies in ("" when none).
func projectID(name string) string {
	n, err := parseName(name)
	if err != nil {
		return ""
	}
	return n.segment("projects")
}

// unitOf is the unit an asset's failure is recorded at: the unit its
// artifacts would carry in the per-project collectors, or "" when its name
// names no project.
func unitOf(assetType, name string) string {
	n, err := parseName(name)
	if err != nil {
		return ""
	}
	p := n.segment("projects")
	if p == "" || allDigits(p) {
		// An export names a project by number; units use its id.
		return ""
	}
	switch assetType {
	case typeDataset, typeTable:
		if d := n.segment("datasets"); d != "" {
			return model.JoinScope(p, d)
		}
	case typeTopic:
		return model.JoinScope(p, "topics")
	case typeSubscription:
		return model.JoinScope(p, "subscriptions")
	case typeAccount:
		return model.JoinScope(p, "serviceAccounts")
	case typeKey:
		// An export names the account by its unique id: then only the
		// project's accounts as a whole are known to be concerned.
		if a := n.segment("serviceAccounts"); strings.Contains(a, "@") {
			return model.JoinScope(p, "serviceAccounts", strings.ToLower(a))
		}
		return model.JoinScope(p, "serviceAccounts")
	}
	return p
}
