package smithy_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/glue"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

const (
	savedAccount   = "123456789012"
	refusedAccount = "210987654321"
	baseSecret     = "canary-base-secret-do-not-save"
)

// databasesOf lists every database of an account, page by page.
func databasesOf(t *testing.T, cfg aws.Config) ([]string, error) {
	t.Helper()
	var names []string
	pager := glue.NewGetDatabasesPaginator(glue.NewFromConfig(cfg), &glue.GetDatabasesInput{})
	for pager.HasMorePages() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			return names, err
		}
		for _, db := range page.DatabaseList {
			names = append(names, aws.ToString(db.Name))
		}
	}
	return names, nil
}

// A recording made through the accounts' roles is read back with no AWS
// at all: the same pages, decoded by the SDK as the live answers were; a
// refused role saves nothing, so its account did not answer; no
// credential is written.
func TestSavedAnswersReplayWhatWasRecorded(t *testing.T) {
	fake := smithy.NewPlaces(t, smithy.AWS(t, "glue"), func(account, region string) smithy.Handler {
		return func(c smithy.Call) (map[string]any, *smithy.Error) {
			from, _ := strconv.Atoi(strings.TrimPrefix(str(c.Input["NextToken"]), "p"))
			all := []string{"analytics", "scratch_bf_1234", "tmp_bf_5000"}
			out := map[string]any{"DatabaseList": []any{map[string]any{"Name": all[from]}}}
			if from+1 < len(all) {
				out["NextToken"] = "p" + strconv.Itoa(from+1)
			}
			return out, nil
		}
	})
	fake.Refuse(refusedAccount)
	dir := t.TempDir()
	record := awsconf.Settings{Regions: []string{"eu-west-1"}, Endpoint: fake.URL, SaveAnswers: "answers", BaseDir: dir,
		Accounts: []awsconf.Account{{ID: savedAccount, Role: "bfaudit-read"}, {ID: refusedAccount, Role: "bfaudit-read"}}}
	cfg, err := awsconf.Load(context.Background(), record,
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIDBASE", baseSecret, "")))
	if err != nil {
		t.Fatal(err)
	}
	targets, err := awsconf.Accounts(context.Background(), cfg, record, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, target := range targets {
		names, err := databasesOf(t, awsconf.Place{Target: target, Region: "eu-west-1"}.Config())
		if target.Account == refusedAccount {
			if err == nil {
				t.Fatal("the refused role read the catalog")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		live = names
	}

	saved := filepath.Join(dir, "answers", savedAccount, "eu-west-1", "glue.jsonl")
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 3 {
		t.Errorf("%d answers saved, want the 3 pages", n)
	}
	filepath.Walk(filepath.Join(dir, "answers"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.Contains(rel, refusedAccount) || strings.Contains(rel, "sts") {
			t.Errorf("%s saved: a refused role or STS is never written", rel)
		}
		b, _ := os.ReadFile(p)
		for _, secret := range []string{baseSecret, smithy.AssumedSecret, smithy.AssumedToken, "Authorization", "Signature="} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds %q", rel, secret)
			}
		}
		return nil
	})

	replay := awsconf.Settings{Regions: []string{"eu-west-1"}, ExportDir: "answers", BaseDir: dir,
		Accounts: []awsconf.Account{{ID: savedAccount}}, Timeout: 5 * time.Second}
	if err := replay.Check(); err != nil {
		t.Fatal(err)
	}
	cfg, err = awsconf.Load(context.Background(), replay)
	if err != nil {
		t.Fatal(err)
	}
	targets, err = awsconf.Accounts(context.Background(), cfg, replay, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) != 1 || targets[0].Account != savedAccount || targets[0].Role != "" {
		t.Fatalf("export's accounts %v, want the one listed, no role", targets)
	}
	place := awsconf.Place{Target: targets[0], Region: "eu-west-1"}
	names, err := databasesOf(t, place.Config())
	if err != nil || strings.Join(names, ",") != strings.Join(live, ",") || len(names) != 3 {
		t.Errorf("replayed %v (%v), recorded %v", names, err, live)
	}

	// A request that was never asked got no answer; so did a region or
	// an account that was not saved. Each names what is missing.
	_, err = glue.NewFromConfig(place.Config()).GetTables(context.Background(), &glue.GetTablesInput{DatabaseName: aws.String("scratch_bf_1234")})
	if err == nil || !strings.Contains(err.Error(), `export_dir answers: `+savedAccount+`/eu-west-1/glue.jsonl: no saved answer to GetTables {"DatabaseName":"scratch_bf_1234"}`) {
		t.Errorf("an unsaved request: %v", err)
	}
	if _, err := databasesOf(t, awsconf.Place{Target: targets[0], Region: "us-east-1"}.Config()); err == nil || !strings.Contains(err.Error(), savedAccount+"/us-east-1/glue.jsonl: not saved") {
		t.Errorf("an unsaved region: %v", err)
	}
	listed := replay
	listed.Accounts = []awsconf.Account{{ID: refusedAccount}}
	targets, _ = awsconf.Accounts(context.Background(), cfg, listed, 5*time.Second)
	if _, err := databasesOf(t, awsconf.Place{Target: targets[0], Region: "eu-west-1"}.Config()); err == nil || !strings.Contains(err.Error(), "not saved") {
		t.Errorf("a listed account that was not saved: %v", err)
	}
	if strings.Contains(err.Error(), dir) {
		t.Errorf("the error names this machine's folder: %v", err)
	}
}

// A broken line is named by file and line, not quoted.
func TestSavedAnswersBrokenLine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, savedAccount, "eu-west-1", "glue.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"operation":"GetDatabases","input":{},"status":200,"body":"{}"}`+"\n"+`{"operation": secret-ish`+"\n"), 0o644)
	s := awsconf.Settings{Regions: []string{"eu-west-1"}, ExportDir: dir, Accounts: []awsconf.Account{{ID: savedAccount}}}
	cfg, err := awsconf.Load(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	targets, err := awsconf.Accounts(context.Background(), cfg, s, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = databasesOf(t, awsconf.Place{Target: targets[0], Region: "eu-west-1"}.Config())
	if err == nil || !strings.Contains(err.Error(), savedAccount+"/eu-west-1/glue.jsonl:2: not a saved answer") || strings.Contains(err.Error(), "secret-ish") {
		t.Errorf("a broken line: %v", err)
	}
}

func TestExportDirSettings(t *testing.T) {
	for _, tt := range []struct {
		s    awsconf.Settings
		want string
	}{
		{awsconf.Settings{Regions: []string{"eu-west-1"}, ExportDir: "x", Endpoint: "http://127.0.0.1:1"}, "endpoint: does not apply with export_dir"},
		{awsconf.Settings{Regions: []string{"eu-west-1"}, ExportDir: "x", SaveAnswers: "y"}, "save_answers: does not apply with export_dir"},
		{awsconf.Settings{Regions: []string{"eu-west-1"}, ExportDir: "x", Organization: &awsconf.Organization{Role: "r"}}, "organization: does not apply"},
	} {
		if err := tt.s.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.s, err, tt.want)
		}
	}
	if err := (awsconf.Settings{Regions: []string{"eu-west-1"}, ExportDir: "x"}).Check(); err == nil || !strings.HasPrefix(err.Error(), "accounts: missing; with export_dir list the accounts") {
		t.Errorf("an export without its accounts: %v", err)
	}
}

func str(v any) string { s, _ := v.(string); return s }
