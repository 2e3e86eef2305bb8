package smithy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"

	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// failures stands in for the test given to a fake, to see the failures the
// fake reports instead of failing this test with them.
type failures struct {
	testing.TB
	mu   sync.Mutex
	seen []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, fmt.Sprintf(format, args...))
}

func (f *failures) all() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.seen, "\n")
}

const (
	form    = "application/x-www-form-urlencoded"
	json11  = "application/x-amz-json-1.1"
	noCheck = ""
)

// Requests the SDK would never send, sent raw: each is refused, answered
// 400 and fails the test with a line naming what is wrong.
func TestBrokenRequestsAreRefusedNamingTheMember(t *testing.T) {
	for _, c := range []struct {
		name, service, method, path, contentType, target, body, want string
	}{
		{"query unknown member", "iam", "POST", "/", form, "", "Action=ListRoles&Version=2010-05-08&PathPrefx=%2F",
			`ListRoles: unknown member "PathPrefx"`},
		{"query unknown nested member", "iam", "POST", "/", form, "", "Action=TagRole&Version=2010-05-08&RoleName=r&Tags.member.1.Key=k&Tags.member.1.Value=v&Tags.member.1.Colour=red",
			`TagRole: unknown member "Tags.member.1.Colour"`},
		{"query missing required", "iam", "POST", "/", form, "", "Action=GetRolePolicy&Version=2010-05-08&PolicyName=p",
			"GetRolePolicy: missing required member RoleName"},
		{"query missing required in a list item", "iam", "POST", "/", form, "", "Action=TagRole&Version=2010-05-08&RoleName=r&Tags.member.1.Key=k",
			"TagRole: Tags[0]: missing required member Value"},
		{"query wrong type", "iam", "POST", "/", form, "", "Action=ListRoles&Version=2010-05-08&MaxItems=ten",
			`ListRoles: MaxItems: want an integer, got "ten"`},
		{"query wrong enum", "iam", "POST", "/", form, "", "Action=ListPolicies&Version=2010-05-08&Scope=Everything",
			`ListPolicies: Scope: "Everything" is not one of the model's values (AWS, All, Local)`},
		{"query bad Version", "iam", "POST", "/", form, "", "Action=ListRoles&Version=2011-06-15",
			`ListRoles: Version="2011-06-15", the model's is 2010-05-08`},
		{"query unknown operation", "sts", "POST", "/", form, "", "Action=AssumeEverything&Version=2011-06-15",
			`unknown operation: Action="AssumeEverything"`},
		{"json unknown member", "glue", "POST", "/", json11, "AWSGlue.GetTables", `{"DatabaseName":"d","Filter":"x"}`,
			`GetTables: unknown member "Filter"`},
		{"json missing required", "glue", "POST", "/", json11, "AWSGlue.GetTables", `{"CatalogId":"1"}`,
			"GetTables: missing required member DatabaseName"},
		{"json wrong type", "glue", "POST", "/", json11, "AWSGlue.GetTables", `{"DatabaseName":"d","MaxResults":"10"}`,
			`GetTables: MaxResults: want an integer, got "10"`},
		{"json wrong timestamp", "glue", "POST", "/", json11, "AWSGlue.GetTables", `{"DatabaseName":"d","QueryAsOfTime":"2026-01-01T00:00:00Z"}`,
			`GetTables: QueryAsOfTime: want a timestamp (epoch-seconds), got "2026-01-01T00:00:00Z"`},
		{"json wrong enum", "glue", "POST", "/", json11, "AWSGlue.GetDatabases", `{"ResourceShareType":"MINE"}`,
			`GetDatabases: ResourceShareType: "MINE" is not one of the model's values (ALL, FEDERATED, FOREIGN)`},
		// The SDK in go.mod is newer than the model and sends this member
		// when set; the model does not have it, so a collector must not.
		{"json member newer than the model", "glue", "POST", "/", json11, "AWSGlue.GetTables", `{"DatabaseName":"d","ResourceShareType":"ALL"}`,
			`GetTables: unknown member "ResourceShareType"`},
		{"json wrong structure", "organizations", "POST", "/", json11, "AWSOrganizationsV20161128.ListAccounts", `{"MaxResults":[1]}`,
			"ListAccounts: MaxResults: want an integer, got a list"},
		{"json unknown target", "glue", "POST", "/", json11, "AWSGlue.DropEverything", `{}`,
			`unknown operation: X-Amz-Target "AWSGlue.DropEverything"`},
		{"json wrong content type", "glue", "POST", "/", "application/json", "AWSGlue.GetDatabases", `{}`,
			`GetDatabases: Content-Type "application/json", the protocol's is application/x-amz-json-1.1`},
		{"rest unknown query parameter", "scheduler", "GET", "/schedules?Colour=red", "", "", "",
			`ListSchedules: unknown query parameter "Colour"`},
		{"rest wrong enum", "scheduler", "GET", "/schedules?State=PAUSED", "", "", "",
			`ListSchedules: State: "PAUSED" is not one of the model's values (DISABLED, ENABLED)`},
		{"rest wrong type", "scheduler", "GET", "/schedules?MaxResults=many", "", "", "",
			`ListSchedules: MaxResults: want an integer, got "many"`},
		{"rest body member missing", "scheduler", "POST", "/schedule-groups/g", "application/json", "", `{"Tags":[{"Key":"k"}]}`,
			"CreateScheduleGroup: Tags[0]: missing required member Value"},
		{"rest no such path", "scheduler", "DELETE", "/schedules", "", "", "",
			"unknown operation: no operation of the model is DELETE /schedules"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &failures{TB: t}
			fake := smithy.NewServer(f, smithy.AWS(t, c.service), func(smithy.Call) (map[string]any, *smithy.Error) {
				t.Error("the handler was called with a broken request")
				return nil, nil
			})
			req, _ := http.NewRequest(c.method, fake.URL+c.path, strings.NewReader(c.body))
			if c.contentType != noCheck {
				req.Header.Set("Content-Type", c.contentType)
			}
			if c.target != "" {
				req.Header.Set("X-Amz-Target", c.target)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			code := resp.Header.Get("X-Amzn-ErrorType") + string(body) // restJson1 names the code in the header
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(code, "SmithyContractViolation") {
				t.Errorf("answer %d %s, want 400 SmithyContractViolation", resp.StatusCode, body)
			}
			if got := f.all(); !strings.Contains(got, c.want) {
				t.Errorf("the test failed with:\n%s\nwant a line with:\n%s", got, c.want)
			}
			if calls := fake.Calls(); len(calls) != 0 {
				t.Errorf("calls %v: a refused request is not a call", calls)
			}
		})
	}
}

// A fake cannot invent: an output member, a required member left out, a
// value of the wrong type or an error the operation does not have each
// fail the test.
func TestAnswersThatBreakTheModelFailTheTest(t *testing.T) {
	for _, c := range []struct {
		name   string
		output map[string]any
		err    *smithy.Error
		want   string
	}{
		{"invented member", map[string]any{"TableList": []any{}, "Colour": "red"}, nil,
			`answers GetTables with an output the model does not allow: unknown member "Colour"`},
		{"missing required", map[string]any{"TableList": []any{map[string]any{"DatabaseName": "d"}}}, nil,
			"TableList[0]: missing required member Name"},
		{"wrong type", map[string]any{"TableList": []any{map[string]any{"Name": "t", "UpdateTime": "yesterday"}}}, nil,
			`TableList[0].UpdateTime: want a time.Time, got "yesterday"`},
		{"error not of the operation", nil, &smithy.Error{Code: "CrawlerRunningException", Message: "busy"},
			"CrawlerRunningException is not among the errors of GetTables"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &failures{TB: t}
			fake := smithy.NewServer(f, smithy.AWS(t, "glue"), func(smithy.Call) (map[string]any, *smithy.Error) {
				return c.output, c.err
			})
			_, err := glue.NewFromConfig(smithy.AWSConfig(fake.URL)).GetTables(context.Background(), &glue.GetTablesInput{DatabaseName: aws.String("d")})
			if err == nil {
				t.Error("the SDK got an answer")
			}
			if got := f.all(); !strings.Contains(got, c.want) {
				t.Errorf("the test failed with:\n%s\nwant a line with:\n%s", got, c.want)
			}
		})
	}
}

func TestStallHoldsAnswersUntilTheClientGivesUp(t *testing.T) {
	fake := smithy.NewServer(t, smithy.AWS(t, "glue"), func(smithy.Call) (map[string]any, *smithy.Error) {
		return map[string]any{"DatabaseList": []any{}}, nil
	})
	client := glue.NewFromConfig(smithy.AWSConfig(fake.URL))
	fake.Stall(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := client.GetDatabases(ctx, &glue.GetDatabasesInput{}); err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("stalled call: error %v after %v, want the deadline's", err, time.Since(start))
	}
	fake.Stall(0)
	if _, err := client.GetDatabases(context.Background(), &glue.GetDatabasesInput{}); err != nil {
		t.Errorf("after the stall: %v", err)
	}
}
