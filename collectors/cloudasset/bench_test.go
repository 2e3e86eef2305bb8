package cloudasset

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
)

// benchProjects is the size of the organization the benchmark audits.
const benchProjects = 2000

// largeEstate is an organization of n projects, each with a production
// dataset (two tables, the default ACL and a reader), a topic and its
// subscription, a service account with a key and two bindings; one
// project in 100 also holds a backfill's machinery (a labelled temp table,
// a retry topic and its subscription, a runner account with a key and its
// binding).
func largeEstate(n int) *fxEstate {
	e := &fxEstate{}
	for i := range n {
		id := fmt.Sprintf("p-%04d", i)
		p := &fxProject{id: id, number: fmt.Sprint(100000 + i)}
		ds := &fxDataset{id: "analytics", labels: map[string]string{"team": "data"},
			acl: []fxBinding{
				{role: "roles/bigquery.dataOwner", members: []string{"projectOwner:" + id}},
				{role: "roles/bigquery.dataViewer", members: []string{"group:analysts@example.com"}},
			},
			tables: []fxTable{{id: "events", created: jan2, modified: jan20, rows: 10}, {id: "users", created: jan2, modified: jan20, rows: 3}}}
		p.datasets = []*fxDataset{ds}
		p.topics = []*pubsubpb.Topic{{Name: "projects/" + id + "/topics/orders"}}
		p.subs = []*pubsubpb.Subscription{{Name: "projects/" + id + "/subscriptions/orders-sink", Topic: "projects/" + id + "/topics/orders"}}
		p.accounts = []*fxAccount{{email: "etl@" + id + ".iam.gserviceaccount.com", uniqueID: fmt.Sprint(200000 + 2*i), display: "ETL",
			keys: []fxKey{{id: "ketl", validAfter: "2025-01-01T00:00:00Z", validBefore: "9999-12-31T23:59:59Z", keyType: "USER_MANAGED"}}}}
		p.policy = []fxBinding{
			{role: "roles/owner", members: []string{"group:platform@example.com"}},
			{role: "roles/viewer", members: []string{"group:analysts@example.com"}},
		}
		if i%100 == 0 {
			bf := fmt.Sprintf("bf-%d", 7000+i/100)
			runner := bf + "-runner@" + id + ".iam.gserviceaccount.com"
			ds.tables = append(ds.tables, fxTable{id: "tmp_" + fmt.Sprint(i), labels: map[string]string{"backfill_id": bf}, created: jan2, modified: jan20, rows: 99})
			p.topics = append(p.topics, &pubsubpb.Topic{Name: "projects/" + id + "/topics/" + bf + "-retry"})
			p.subs = append(p.subs, &pubsubpb.Subscription{Name: "projects/" + id + "/subscriptions/retry-worker", Topic: "projects/" + id + "/topics/" + bf + "-retry"})
			p.accounts = append(p.accounts, &fxAccount{email: runner, uniqueID: fmt.Sprint(200001 + 2*i),
				keys: []fxKey{{id: "k1", validAfter: "2026-01-05T10:00:00Z", validBefore: "9999-12-31T23:59:59Z", keyType: "USER_MANAGED"}}})
			p.policy = append(p.policy, fxBinding{role: "roles/bigquery.dataEditor", members: []string{"serviceAccount:" + runner}})
		}
		e.projects = append(e.projects, p)
	}
	return e
}

// countCalls counts the Pub/Sub list calls pstest serves (and lets them
// through).
type countCalls struct{ n atomic.Int64 }

func (c *countCalls) React(any) (bool, any, error) { c.n.Add(1); return false, nil, nil }

// BenchmarkOrganization2000Projects collects one organization of 2,000
// projects (20 of them with a backfill's machinery) through the
// per-project collectors (bigquery + pubsub + gcpiam, against REST fakes
// and pstest) and through cloudasset (against the fake Asset API), and
// reports the API calls each makes per collection. Wall time per
// collection is ns/op; both fakes answer on loopback without delay, so the
// ratio understates the difference against the real APIs' latency.
//
//	go test -run '^$' -bench Organization -benchtime 3x ./collectors/cloudasset/
func BenchmarkOrganization2000Projects(b *testing.B) {
	e := largeEstate(benchProjects)
	var pubsubCalls countCalls
	startPubSub(b, e, pstest.ServerReactorOption{FuncName: "ListTopics", Reactor: &pubsubCalls},
		pstest.ServerReactorOption{FuncName: "ListSubscriptions", Reactor: &pubsubCalls})
	fp := &fakeProjects{t: b, estate: e, pageSize: 1000}
	projects := fp.start()
	useServiceAccount(b, projects.URL+"/token")
	fa := newFakeAsset(b, e)
	assets := fa.start()
	ids := make([]any, len(e.projects))
	for i, p := range e.projects {
		ids[i] = p.id
	}

	run := func(b *testing.B, entries []map[string]any, calls func() int64) {
		sel := correlate.MustSelector()
		var instances []collectors.Collector
		for _, en := range entries {
			in, err := collectors.Decode(en, collectors.Env{Selector: sel, Now: func() time.Time { return auditNow }})
			if err != nil {
				b.Fatal(err)
			}
			if cl, ok := in.Collector.(interface{ Close() error }); ok {
				b.Cleanup(func() { cl.Close() })
			}
			instances = append(instances, in.Collector)
		}
		before := calls()
		artifacts := 0
		for b.Loop() {
			for _, c := range instances {
				sink := collectors.NewTestSink()
				if err := collectors.Collect(context.Background(), c, sink); err != nil || len(sink.Errors) != 0 {
					b.Fatalf("collect: %v %+v", err, sink.Errors)
				}
				artifacts += len(sink.Artifacts)
			}
		}
		b.ReportMetric(float64(calls()-before)/float64(b.N), "calls/op")
		b.ReportMetric(float64(artifacts)/float64(b.N), "artifacts/op")
	}
	b.Run("per-project", func(b *testing.B) {
		run(b, []map[string]any{
			{"type": "bigquery", "projects": ids, "endpoint": projects.URL},
			{"type": "pubsub", "projects": ids},
			{"type": "gcpiam", "projects": ids, "endpoint": projects.URL},
		}, func() int64 { return int64(fp.count()) + pubsubCalls.n.Load() })
	})
	b.Run("cloudasset", func(b *testing.B) {
		run(b, []map[string]any{{"type": "cloudasset", "scopes": []any{"organizations/42"}, "endpoint": assets.URL}},
			func() int64 { return int64(fa.calls()) })
	})
}
