package cloudasset

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	bq "google.golang.org/api/bigquery/v2"
	iam "google.golang.org/api/iam/v1"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/bfaudit/bfaudit/testkit/pubsubfake"
)

// fakeProjects serves the per-project REST APIs the bigquery and gcpiam
// collectors call, from the same estate as fakeAsset: BigQuery v2
// (/bigquery/v2/projects/P/datasets..., paged), Resource Manager v3
// (POST /v3/projects/P:getIamPolicy) and IAM v1 (serviceAccounts.list,
// keys.list?keyTypes=USER_MANAGED), plus an OAuth token endpoint, so the
// collectors run as configured, with service-account credentials.
type fakeProjects struct {
	t        testing.TB
	mu       sync.Mutex
	estate   *fxEstate
	pageSize int
	calls    int
}

func (f *fakeProjects) start() *httptest.Server {
	srv := httptest.NewServer(f)
	f.t.Cleanup(srv.Close)
	return srv
}

func (f *fakeProjects) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *fakeProjects) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := r.URL.Path
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if path == "/token" {
		fmt.Fprint(w, `{"access_token":"fake-token","token_type":"Bearer","expires_in":3600}`)
		return
	}
	f.calls++
	q := r.URL.Query()
	switch {
	case strings.HasPrefix(path, "/bigquery/v2/projects/"):
		f.bigquery(w, strings.Split(strings.TrimPrefix(path, "/bigquery/v2/projects/"), "/"), q.Get("pageToken"))
	case strings.HasPrefix(path, "/v3/projects/") && strings.HasSuffix(path, ":getIamPolicy"):
		p := f.estate.project(strings.TrimSuffix(strings.TrimPrefix(path, "/v3/projects/"), ":getIamPolicy"))
		if p == nil {
			apiError(w, http.StatusNotFound, "NOT_FOUND", "project not found")
			return
		}
		w.Write(mustJSON(crmPolicy(p.policy)))
	case strings.HasPrefix(path, "/v1/projects/") && strings.HasSuffix(path, "/serviceAccounts"):
		p := f.estate.project(strings.TrimSuffix(strings.TrimPrefix(path, "/v1/projects/"), "/serviceAccounts"))
		if p == nil {
			apiError(w, http.StatusNotFound, "NOT_FOUND", "project not found")
			return
		}
		var all []*iam.ServiceAccount
		for _, a := range p.accounts {
			all = append(all, a.rest(p.id))
		}
		start, _ := strconv.Atoi(q.Get("pageToken"))
		end, next := pageOf(start, f.pageSize, len(all))
		w.Write(mustJSON(&iam.ListServiceAccountsResponse{Accounts: all[min(start, len(all)):end], NextPageToken: next}))
	case strings.HasPrefix(path, "/v1/projects/") && strings.HasSuffix(path, "/keys"):
		parts := strings.Split(path, "/") // "", v1, projects, P, serviceAccounts, E, keys
		if q.Get("keyTypes") != "USER_MANAGED" {
			apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "test fake: expected keyTypes=USER_MANAGED")
			return
		}
		p, a := f.account(parts[5])
		if a == nil {
			apiError(w, http.StatusForbidden, "PERMISSION_DENIED", "Permission 'iam.serviceAccountKeys.list' denied")
			return
		}
		var keys []*iam.ServiceAccountKey
		for _, k := range a.keys {
			if k.keyType == "USER_MANAGED" {
				keys = append(keys, k.rest(p.id, a.email))
			}
		}
		w.Write(mustJSON(&iam.ListServiceAccountKeysResponse{Keys: keys}))
	default:
		apiError(w, http.StatusNotFound, "NOT_FOUND", "test fake: no route "+r.Method+" "+path)
	}
}

func (f *fakeProjects) account(email string) (*fxProject, *fxAccount) {
	for _, p := range f.estate.projects {
		for _, a := range p.accounts {
			if a.email == email {
				return p, a
			}
		}
	}
	return nil, nil
}

// bigquery answers datasets.list, datasets.get, tables.list, tables.get.
func (f *fakeProjects) bigquery(w http.ResponseWriter, parts []string, token string) {
	p := f.estate.project(parts[0])
	if p == nil {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "Not found: Project "+parts[0])
		return
	}
	var ds *fxDataset
	if len(parts) >= 3 {
		for _, d := range p.datasets {
			if d.id == parts[2] {
				ds = d
			}
		}
		if ds == nil {
			apiError(w, http.StatusNotFound, "NOT_FOUND", "Not found: Dataset")
			return
		}
	}
	start, _ := strconv.Atoi(token)
	switch {
	case len(parts) == 2 && parts[1] == "datasets":
		var all []*bq.DatasetListDatasets
		for _, d := range p.datasets {
			all = append(all, &bq.DatasetListDatasets{Kind: "bigquery#dataset", Id: p.id + ":" + d.id, Labels: d.labels, Location: "US",
				DatasetReference: &bq.DatasetReference{ProjectId: p.id, DatasetId: d.id}})
		}
		end, next := pageOf(start, f.pageSize, len(all))
		w.Write(mustJSON(&bq.DatasetList{Kind: "bigquery#datasetList", Datasets: all[min(start, len(all)):end], NextPageToken: next}))
	case len(parts) == 3:
		w.Write(mustJSON(ds.get(p.id)))
	case len(parts) == 4 && parts[3] == "tables":
		var all []*bq.TableListTables
		for _, t := range ds.tables {
			all = append(all, t.list(p.id, ds.id))
		}
		end, next := pageOf(start, f.pageSize, len(all))
		w.Write(mustJSON(&bq.TableList{Kind: "bigquery#tableList", Tables: all[min(start, len(all)):end], NextPageToken: next, TotalItems: int64(len(all))}))
	case len(parts) == 5:
		for _, t := range ds.tables {
			if t.id == parts[4] {
				w.Write(mustJSON(t.get(p.id, ds.id)))
				return
			}
		}
		apiError(w, http.StatusNotFound, "NOT_FOUND", "Not found: Table")
	default:
		apiError(w, http.StatusNotFound, "NOT_FOUND", "test fake: no route")
	}
}

var (
	keyOnce sync.Once
	keyPEM  []byte
)

// useServiceAccount points Application Default Credentials at a service
// account whose token endpoint is the fake's, so the per-project
// collectors authenticate as in production, against loopback only.
func useServiceAccount(t testing.TB, tokenURL string) {
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: must(x509.MarshalPKCS8PrivateKey(k))})
	})
	path := filepath.Join(t.TempDir(), "sa.json")
	b := mustJSON(map[string]string{"type": "service_account", "project_id": "proj", "private_key_id": "k",
		"private_key": string(keyPEM), "client_email": "bfaudit@proj.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokenURL})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// startPubSub runs pstest (with the snapshot calls, none held) with the
// estate's topics and subscriptions,
// points the pubsub collector's client at it (PUBSUB_EMULATOR_HOST), and
// puts back into the estate what pstest holds (its defaults filled in), so
// both paths read the same objects.
func startPubSub(t testing.TB, e *fxEstate, opts ...pstest.ServerReactorOption) *pubsubfake.Server {
	srv, err := pubsubfake.NewServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	t.Setenv("PUBSUB_EMULATOR_HOST", srv.Addr)
	ctx := context.Background()
	client, err := pubsub.NewClient(ctx, "proj", option.WithEndpoint(srv.Addr), option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	for _, p := range e.projects {
		for _, tp := range p.topics {
			if _, err := client.TopicAdminClient.CreateTopic(ctx, tp); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range e.projects {
		for i, s := range p.subs {
			got, err := client.SubscriptionAdminClient.CreateSubscription(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			p.subs[i] = got
		}
		for i, tp := range p.topics {
			got, err := client.TopicAdminClient.GetTopic(ctx, &pubsubpb.GetTopicRequest{Topic: tp.GetName()})
			if err != nil {
				t.Fatal(err)
			}
			p.topics[i] = got
		}
	}
	return srv
}
