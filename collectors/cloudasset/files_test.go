package cloudasset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/asset/apiv1/assetpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"github.com/bfaudit/bfaudit/collectors"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// searchOutput renders what `gcloud asset search-all-resources
// --read-mask='*' --format=json` and `search-all-iam-policies
// --format=json` print for the estate: JSON arrays of results.
func searchOutput(e *fxEstate) (resources, policies []byte) {
	rs, ps := e.assets()
	var r, p []string
	for _, a := range rs {
		r = append(r, string(must(protojson.Marshal(a.result))))
	}
	for _, x := range ps {
		p = append(p, string(must(protojson.Marshal(x.result))))
	}
	return []byte("[\n" + strings.Join(r, ",\n") + "\n]\n"), []byte("[" + strings.Join(p, ",") + "]")
}

// exportOutput renders what `gcloud asset export --content-type=resource`
// and `--content-type=iam-policy` write: one asset a line, proto field
// names, projects named by number, the Project assets themselves
// included when withProjects.
func exportOutput(e *fxEstate, withProjects bool) []byte {
	rs, ps := e.assets()
	opts := protojson.MarshalOptions{UseProtoNames: true}
	var lines []string
	for _, a := range rs {
		r := a.result
		lines = append(lines, string(must(opts.Marshal(&assetpb.Asset{
			Name: r.GetName(), AssetType: r.GetAssetType(),
			Resource: &assetpb.Resource{Version: r.GetVersionedResources()[0].GetVersion(), Parent: a.parent,
				DiscoveryName: r.GetAssetType()[strings.LastIndexByte(r.GetAssetType(), '/')+1:],
				Data:          r.GetVersionedResources()[0].GetResource()},
			Ancestors: []string{r.GetProject(), "organizations/42"},
		}))))
	}
	for _, p := range e.projects {
		name := "//cloudresourcemanager.googleapis.com/projects/" + p.number
		if withProjects {
			lines = append(lines, string(must(opts.Marshal(&assetpb.Asset{Name: name, AssetType: typeProject,
				Resource: &assetpb.Resource{Version: "v1", Data: structOf(map[string]string{
					"projectId": p.id, "projectNumber": p.number, "lifecycleState": "ACTIVE", "name": p.id})}}))))
		}
		lines = append(lines, string(must(opts.Marshal(&assetpb.Asset{Name: name, AssetType: typeProject,
			IamPolicy: &iampb.Policy{Version: 3, Etag: []byte("BwYx"), Bindings: iamBindings(p.policy)}}))))
	}
	for _, x := range ps {
		if x.result.GetAssetType() == typeDataset {
			lines = append(lines, string(must(opts.Marshal(&assetpb.Asset{Name: x.result.GetResource(), AssetType: typeDataset,
				IamPolicy: proto.Clone(x.result.GetPolicy()).(*iampb.Policy)}))))
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func offline(t *testing.T, dir string, files ...string) *Collector {
	t.Helper()
	c := &Collector{Files: files, Timeout: time.Second,
		Principals: []Principal{{Member: "serviceAccount:" + faultAccount, BackfillID: "BF-7001"}}}
	if err := c.Init(testEnv(dir)); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return c
}

// Files of gcloud's search and export commands give what the searches
// give, relative to the config file's directory.
func TestFiles(t *testing.T) {
	e := sampleEstate()
	res, pol := searchOutput(e)
	dir := t.TempDir()
	cases := map[string][]string{
		"search output": {writeFile(t, dir, "resources.json", res), writeFile(t, dir, "policies.json", pol)},
		"export":        {writeFile(t, dir, "export.json", exportOutput(e, true))},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			sink := collect(t, offline(t, dir, files...))
			if len(sink.Errors) != 0 {
				t.Fatalf("errors: %+v", sink.Errors)
			}
			if got := strings.Join(uris(sink), "\n"); got != strings.Join(wantURIs, "\n") {
				t.Fatalf("artifacts:\n%s\nwant:\n%s", got, strings.Join(wantURIs, "\n"))
			}
		})
	}
}

// An export names projects by number; without the Project assets a
// project's bindings cannot be given their URIs: the whole source did not
// fully answer, and the message says which assets to export.
func TestExportWithoutProjects(t *testing.T) {
	dir := t.TempDir()
	sink := collect(t, offline(t, dir, writeFile(t, dir, "export.json", exportOutput(sampleEstate(), false))))
	if len(sink.Errors) == 0 || sink.Errors[0].Scope != "" || !strings.Contains(sink.Errors[0].Error, "--asset-types=cloudresourcemanager.googleapis.com/Project") {
		t.Fatalf("errors %+v; want one at the whole source naming the assets to export", sink.Errors)
	}
	if sink.Artifact("bigquery://proj/analytics/bf_7001_tmp") == nil {
		t.Errorf("the rest of the export was not read: %v", uris(sink))
	}
}

// A file that is not gcloud asset output is an error naming the file, not
// an empty answer; with no other file or scope the source fails.
func TestBadFiles(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"empty", "", "empty file"},
		{"null", "null", "holds null"},
		{"yaml", "- name: x\n", "not JSON"},
		{"truncated array", `[{"name":"//bigquery.googleapis.com/projects/p/datasets/d"`, "not a JSON array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c := offline(t, dir, writeFile(t, dir, "f.json", []byte(tc.body)))
			err := collectors.Collect(context.Background(), c, collectors.NewTestSink())
			if err == nil || !strings.Contains(err.Error(), "f.json") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v; want the file named and %q", err, tc.want)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		dir := t.TempDir()
		err := collectors.Collect(context.Background(), offline(t, dir, "nope.json"), collectors.NewTestSink())
		if err == nil || !strings.Contains(err.Error(), "nope.json") || strings.Contains(err.Error(), dir) {
			t.Fatalf("err %v; want the file named as configured", err)
		}
	})
}

// Entries that cannot be read are errors: at their unit when their name
// says it, else at the whole source; the other entries are read.
func TestBadEntries(t *testing.T) {
	res, _ := searchOutput(sampleEstate())
	bad := `[{"name":"//bigquery.googleapis.com/projects/proj/datasets/analytics/tables/bf_7001_other","assetType":"bigquery.googleapis.com/Table",
		"versionedResources":[{"version":"v2","resource":{"numRows":12}}]},
	  {"name":"not-a-name","assetType":"pubsub.googleapis.com/Topic"},
	  {"hello":"world"},
	  {"name":"//pubsub.googleapis.com/projects/proj/topics/bf-7001-x","assetType":"pubsub.googleapis.com/Topic"}]`
	dir := t.TempDir()
	sink := collect(t, offline(t, dir, writeFile(t, dir, "bad.json", []byte(bad)), writeFile(t, dir, "good.json", res)))
	got := map[string]int{}
	for _, e := range sink.Errors {
		got[e.Scope]++
	}
	if got["proj/analytics"] != 1 || got[""] != 2 || got["proj/topics"] != 1 || len(got) != 3 {
		t.Errorf("errors %+v; want the table's at proj/analytics, the topic without data at proj/topics, two at the source", sink.Errors)
	}
	if sink.Artifact("bigquery://proj/analytics/bf_7001_tmp") == nil {
		t.Errorf("the good file's table is gone: %v", uris(sink))
	}
	// Each names its place as every parser does: path:line: entry.
	var msgs []string
	for _, e := range sink.Errors {
		msgs = append(msgs, e.Error)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"cloudasset: bad.json:3: entry 2: a pubsub.googleapis.com/Topic result: ", "cloudasset: bad.json:4: entry 3: neither an asset"} {
		if !strings.Contains(all, want) {
			t.Errorf("errors lack %q:\n%s", want, all)
		}
	}
}

// An export (one asset a line) names a bad line by its number.
func TestBadExportLine(t *testing.T) {
	body := "\n{\"asset_type\":\"bigquery.googleapis.com/Table\",\"resource\":{}}\n[1]\n"
	dir := t.TempDir()
	sink := collectors.NewTestSink()
	_ = collectors.Collect(context.Background(), offline(t, dir, writeFile(t, dir, "export.json", []byte(body))), sink)
	var msgs []string
	for _, e := range sink.Errors {
		msgs = append(msgs, e.Error)
	}
	if all := strings.Join(msgs, "\n"); !strings.Contains(all, "cloudasset: export.json:3: not a JSON object") {
		t.Errorf("errors:\n%s\nwant export.json:3 named", all)
	}
}

// Every unit says what it read, per asset type, machinery or not: the
// production table events, topic orders, account etl and its key, the
// bindings of every policy.
func TestReadsOfEveryUnit(t *testing.T) {
	dir := t.TempDir()
	sink := collect(t, offline(t, dir, writeFile(t, dir, "export.json", exportOutput(sampleEstate(), true))))
	if len(sink.Errors) != 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	for _, r := range []struct {
		scope, what string
		read        int
	}{
		{"proj", "projects", 1},
		{"proj", "bindings", 3},
		{"proj/analytics", "datasets", 1},
		{"proj/analytics", "tables", 2},
		{"proj/analytics", "bindings", 3},
		{"proj/bf_7001_scratch", "tables", 2},
		{"proj/topics", "topics", 2},
		{"proj/subscriptions", "subscriptions", 2},
		{"other/subscriptions", "subscriptions", 2},
		{"proj/serviceAccounts", "service accounts", 3},
		{"proj/serviceAccounts/etl@proj.iam.gserviceaccount.com", "service-account keys", 1},
		{"proj/serviceAccounts/" + faultAccount, "service-account keys", 2},
		{"", "service-account keys", 4},
		{"", "datasets", 3},
	} {
		if n, p := sink.Read(r.scope, r.what); n != r.read || p != 0 {
			t.Errorf("%q: read %d %s (%d in part), want %d", r.scope, n, r.what, p, r.read)
		}
	}
}
