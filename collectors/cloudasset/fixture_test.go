package cloudasset

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/asset/apiv1/assetpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	bq "google.golang.org/api/bigquery/v2"
	crm "google.golang.org/api/cloudresourcemanager/v3"
	iam "google.golang.org/api/iam/v1"
	"google.golang.org/genproto/googleapis/type/expr"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// fxEstate is one Google Cloud estate, rendered for both paths: the Asset
// API's answers (fakeAsset), and the per-project APIs' answers (BigQuery
// v2, Resource Manager v3 and IAM v1 REST in fakeProjects; Pub/Sub in
// pstest). Dataset ACLs are written once, in IAM terms, and spelt the way
// each API spells them.
type fxEstate struct {
	projects []*fxProject
}

type fxProject struct {
	id, number string
	datasets   []*fxDataset
	topics     []*pubsubpb.Topic
	subs       []*pubsubpb.Subscription
	accounts   []*fxAccount
	policy     []fxBinding
}

type fxDataset struct {
	id     string
	labels map[string]string
	acl    []fxBinding
	tables []fxTable
}

type fxTable struct {
	id                         string
	labels                     map[string]string
	partitionField             string
	created, modified, expires time.Time
	rows, bytes                uint64
}

type fxAccount struct {
	email, uniqueID, display, description string
	disabled                              bool
	keys                                  []fxKey
}

type fxKey struct {
	id, validAfter, validBefore, keyType string
	disabled                             bool
}

type fxBinding struct {
	role         string
	members      []string
	title, cexpr string
}

var (
	jan2  = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	jan20 = time.Date(2026, 1, 20, 8, 30, 0, 0, time.UTC)
	feb1  = time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	// auditNow is the audit time of the tests: after BF-7001 finished.
	auditNow = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
)

// faultAccount is BF-7001's elevated principal in the fixture (and in the
// fault matrix's plan).
const faultAccount = "bf-7001@proj.iam.gserviceaccount.com"

// sampleEstate is the fixture every test starts from: project proj holds
// BF-7001's machinery next to production objects, project other holds a
// production dataset and a subscription on BF-7001's retry topic.
func sampleEstate() *fxEstate {
	proj := &fxProject{id: "proj", number: "1001",
		datasets: []*fxDataset{
			{id: "analytics", labels: map[string]string{"team": "data"},
				acl: []fxBinding{
					{role: "roles/bigquery.dataOwner", members: []string{"projectOwner:proj"}},
					{role: "roles/bigquery.dataViewer", members: []string{"user:prod-reader@example.com"}},
					{role: "roles/bigquery.dataEditor", members: []string{"serviceAccount:" + faultAccount}},
				},
				tables: []fxTable{
					{id: "events", partitionField: "event_date", created: jan2, modified: jan20, rows: 10, bytes: 100},
					{id: "bf_7001_tmp", labels: map[string]string{"backfill_id": "bf-7001", "owner": "data-eng"}, partitionField: "event_date",
						created: jan2, modified: jan20, rows: 1200, bytes: 98765},
				}},
			{id: "bf_7001_scratch",
				acl: []fxBinding{
					{role: "roles/bigquery.dataOwner", members: []string{"projectOwner:proj"}},
					{role: "roles/bigquery.dataViewer", members: []string{"group:analysts@example.com"},
						title: "until feb", cexpr: `request.time < timestamp("2026-02-01T00:00:00Z")`},
				},
				tables: []fxTable{
					{id: "joined", created: jan2, modified: jan20, expires: feb1, rows: 5, bytes: 50},
					{id: "staging", created: jan2, modified: jan20, rows: 7, bytes: 70},
				}},
		},
		topics: []*pubsubpb.Topic{
			{Name: "projects/proj/topics/orders"},
			{Name: "projects/proj/topics/bf-7001-retry", MessageRetentionDuration: durationpb.New(24 * time.Hour)},
		},
		subs: []*pubsubpb.Subscription{
			{Name: "projects/proj/subscriptions/orders-warehouse", Topic: "projects/proj/topics/orders"},
			{Name: "projects/proj/subscriptions/retry-worker", Topic: "projects/proj/topics/bf-7001-retry",
				PushConfig:       &pubsubpb.PushConfig{PushEndpoint: "https://worker.example.com/push?token=s3cret"},
				ExpirationPolicy: &pubsubpb.ExpirationPolicy{}},
		},
		accounts: []*fxAccount{
			{email: "etl@proj.iam.gserviceaccount.com", uniqueID: "1100", display: "ETL",
				keys: []fxKey{{id: "ketl", validAfter: "2025-01-01T00:00:00Z", validBefore: "9999-12-31T23:59:59Z", keyType: "USER_MANAGED"}}},
			{email: faultAccount, uniqueID: "1101", display: "BF-7001 replay runner",
				keys: []fxKey{
					{id: "k1", validAfter: "2026-01-05T10:00:00Z", validBefore: "9999-12-31T23:59:59Z", keyType: "USER_MANAGED"},
					{id: "ksys", validAfter: "2026-01-05T10:00:00Z", validBefore: "2026-01-20T10:00:00Z", keyType: "SYSTEM_MANAGED"},
				}},
			{email: "replay@proj.iam.gserviceaccount.com", uniqueID: "1102", description: "made for (BF-7001) only",
				keys: []fxKey{{id: "k2", validAfter: "2026-01-05T10:00:00Z", validBefore: "2026-03-01T00:00:00Z", keyType: "USER_MANAGED"}}},
		},
		policy: []fxBinding{
			{role: "roles/bigquery.dataEditor", members: []string{"serviceAccount:" + faultAccount, "user:prod-owner@example.com"}},
			{role: "roles/viewer", members: []string{"group:analysts@example.com"}},
			{role: "roles/bigquery.dataViewer", members: []string{"user:carol@example.com"},
				title: "BF-7001 temporary read", cexpr: `request.time < timestamp("2026-02-01T00:00:00Z")`},
		},
	}
	other := &fxProject{id: "other", number: "1002",
		datasets: []*fxDataset{{id: "misc", acl: []fxBinding{{role: "roles/bigquery.dataOwner", members: []string{"projectOwner:other"}}}}},
		topics:   []*pubsubpb.Topic{{Name: "projects/other/topics/audit"}},
		subs: []*pubsubpb.Subscription{
			{Name: "projects/other/subscriptions/audit-sink", Topic: "projects/other/topics/audit"},
			{Name: "projects/other/subscriptions/retry-mirror", Topic: "projects/proj/topics/bf-7001-retry"},
		},
		policy: []fxBinding{{role: "roles/viewer", members: []string{"user:bob@example.com"}}},
	}
	return &fxEstate{projects: []*fxProject{proj, other}}
}

func (e *fxEstate) project(id string) *fxProject {
	for _, p := range e.projects {
		if p.id == id {
			return p
		}
	}
	return nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// BigQuery v2 representations.

func (t fxTable) get(p, d string) *bq.Table {
	out := &bq.Table{
		Kind: "bigquery#table", Id: p + ":" + d + "." + t.id,
		TableReference: &bq.TableReference{ProjectId: p, DatasetId: d, TableId: t.id},
		Type:           "TABLE", Labels: t.labels,
		CreationTime: millis(t.created), LastModifiedTime: uint64(millis(t.modified)), ExpirationTime: millis(t.expires),
		NumRows: t.rows, NumBytes: int64(t.bytes),
	}
	if t.partitionField != "" {
		out.TimePartitioning = &bq.TimePartitioning{Type: "DAY", Field: t.partitionField}
	}
	return out
}

func (t fxTable) list(p, d string) *bq.TableListTables {
	g := t.get(p, d)
	return &bq.TableListTables{Kind: g.Kind, Id: g.Id, TableReference: g.TableReference, Type: g.Type, Labels: g.Labels,
		CreationTime: g.CreationTime, ExpirationTime: g.ExpirationTime, TimePartitioning: g.TimePartitioning}
}

func (d *fxDataset) get(p string) *bq.Dataset {
	ds := &bq.Dataset{Kind: "bigquery#dataset", Id: p + ":" + d.id, Labels: d.labels, Location: "US",
		DatasetReference: &bq.DatasetReference{ProjectId: p, DatasetId: d.id}}
	for _, b := range d.acl {
		for _, m := range b.members {
			ds.Access = append(ds.Access, bqAccess(b, m))
		}
	}
	return ds
}

// bqAccess spells one member of a dataset binding as datasets.get does:
// basic roles for the three dataset roles, userByEmail for users and
// service accounts, special groups for the project roles.
func bqAccess(b fxBinding, member string) *bq.DatasetAccess {
	e := &bq.DatasetAccess{Role: map[string]string{
		"roles/bigquery.dataOwner": "OWNER", "roles/bigquery.dataEditor": "WRITER", "roles/bigquery.dataViewer": "READER",
	}[b.role]}
	if e.Role == "" {
		e.Role = b.role
	}
	kind, email, _ := strings.Cut(member, ":")
	switch kind {
	case "user", "serviceAccount":
		e.UserByEmail = email
	case "group":
		e.GroupByEmail = email
	case "domain":
		e.Domain = email
	case "projectOwner":
		e.SpecialGroup = "projectOwners"
	case "projectEditor":
		e.SpecialGroup = "projectWriters"
	case "projectViewer":
		e.SpecialGroup = "projectReaders"
	default:
		e.IamMember = member
	}
	if b.cexpr != "" {
		e.Condition = &bq.Expr{Title: b.title, Expression: b.cexpr}
	}
	return e
}

// IAM v1 and Resource Manager v3 representations.

func (a *fxAccount) rest(p string) *iam.ServiceAccount {
	return &iam.ServiceAccount{Name: "projects/" + p + "/serviceAccounts/" + a.email, ProjectId: p, UniqueId: a.uniqueID,
		Email: a.email, DisplayName: a.display, Description: a.description, Disabled: a.disabled, Oauth2ClientId: a.uniqueID}
}

func (k fxKey) rest(p, email string) *iam.ServiceAccountKey {
	return &iam.ServiceAccountKey{Name: "projects/" + p + "/serviceAccounts/" + email + "/keys/" + k.id,
		ValidAfterTime: k.validAfter, ValidBeforeTime: k.validBefore, KeyAlgorithm: "KEY_ALG_RSA_2048",
		KeyOrigin: "GOOGLE_PROVIDED", KeyType: k.keyType, Disabled: k.disabled}
}

func crmPolicy(bs []fxBinding) *crm.Policy {
	pol := &crm.Policy{Version: 3, Etag: "BwYx"}
	for _, b := range bs {
		cb := &crm.Binding{Role: b.role, Members: b.members}
		if b.cexpr != "" {
			cb.Condition = &crm.Expr{Title: b.title, Expression: b.cexpr}
		}
		pol.Bindings = append(pol.Bindings, cb)
	}
	return pol
}

func iamBindings(bs []fxBinding) []*iampb.Binding {
	var out []*iampb.Binding
	for _, b := range bs {
		ib := &iampb.Binding{Role: b.role, Members: b.members}
		if b.cexpr != "" {
			ib.Condition = &expr.Expr{Title: b.title, Expression: b.cexpr}
		}
		out = append(out, ib)
	}
	return out
}

// Asset API representations.

// fxAsset is one resource as the Asset API holds it: the search result it
// answers with, and what its query language sees.
type fxAsset struct {
	result *assetpb.ResourceSearchResult
	parent string
	// text is every searchable field's value (name, display name,
	// description, label keys and values, additional attributes).
	text []string
}

type fxPolicy struct {
	result *assetpb.IamPolicySearchResult
}

func structOf(v any) *structpb.Struct {
	s := &structpb.Struct{}
	if err := protojson.Unmarshal(mustJSON(v), s); err != nil {
		panic(err)
	}
	return s
}

// assets renders the estate as the Asset API holds it.
func (e *fxEstate) assets() ([]fxAsset, []fxPolicy) {
	var rs []fxAsset
	var ps []fxPolicy
	add := func(assetType, name, num, version, parent string, data any, labels map[string]string, text ...string) {
		var st *structpb.Struct
		switch d := data.(type) {
		case *pubsubpb.Topic:
			st = mustProtoStruct(d)
		case *pubsubpb.Subscription:
			st = mustProtoStruct(d)
		default:
			st = structOf(d)
		}
		r := &assetpb.ResourceSearchResult{Name: name, AssetType: assetType, Project: "projects/" + num, Labels: labels,
			ParentFullResourceName: parent, VersionedResources: []*assetpb.VersionedResource{{Version: version, Resource: st}}}
		t := append([]string{name}, text...)
		for k, v := range labels {
			t = append(t, k, v)
		}
		rs = append(rs, fxAsset{result: r, parent: parent, text: t})
	}
	for _, p := range e.projects {
		projectName := "//cloudresourcemanager.googleapis.com/projects/" + p.id
		ps = append(ps, fxPolicy{&assetpb.IamPolicySearchResult{Resource: projectName, AssetType: typeProject,
			Project: "projects/" + p.number, Policy: &iampb.Policy{Version: 3, Bindings: iamBindings(p.policy)}}})
		for _, d := range p.datasets {
			dn := datasetName(p.id, d.id)
			add(typeDataset, dn, p.number, "v2", projectName, d.get(p.id), d.labels)
			ps = append(ps, fxPolicy{&assetpb.IamPolicySearchResult{Resource: dn, AssetType: typeDataset,
				Project: "projects/" + p.number, Policy: &iampb.Policy{Bindings: iamBindings(d.acl)}}})
			for _, t := range d.tables {
				add(typeTable, dn+"/tables/"+t.id, p.number, "v2", dn, t.get(p.id, d.id), t.labels)
			}
		}
		for _, t := range p.topics {
			add(typeTopic, "//pubsub.googleapis.com/"+t.GetName(), p.number, "v1", projectName, t, t.GetLabels())
		}
		for _, s := range p.subs {
			add(typeSubscription, "//pubsub.googleapis.com/"+s.GetName(), p.number, "v1", projectName, s, s.GetLabels(), s.GetTopic())
		}
		for _, a := range p.accounts {
			an := "//iam.googleapis.com/projects/" + p.id + "/serviceAccounts/" + a.uniqueID
			add(typeAccount, an, p.number, "v1", projectName, a.rest(p.id), nil, a.email, a.display, a.description)
			for _, k := range a.keys {
				add(typeKey, an+"/keys/"+k.id, p.number, "v1", an, k.rest(p.id, a.email), nil, k.rest(p.id, a.email).Name)
			}
		}
	}
	return rs, ps
}

func mustProtoStruct(m interface {
	ProtoReflect() protoreflect.Message
}) *structpb.Struct {
	b, err := protojson.Marshal(m)
	if err != nil {
		panic(err)
	}
	s := &structpb.Struct{}
	if err := protojson.Unmarshal(b, s); err != nil {
		panic(fmt.Sprint(err))
	}
	return s
}
