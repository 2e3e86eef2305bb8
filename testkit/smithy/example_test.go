package smithy_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"

	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// A Glue fake answering GetTables, and a client of the SDK pointed at it.
// (Not run: it needs the *testing.T of a test.)
func ExampleNewServer() {
	var t *testing.T // the test's own
	fake := smithy.NewServer(t, smithy.AWS(t, "glue"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		switch c.Operation {
		case "GetTables":
			if c.Input["DatabaseName"] != "scratch" {
				return nil, &smithy.Error{Code: "EntityNotFoundException", Message: "no such database"}
			}
			return map[string]any{"TableList": []map[string]any{{"Name": "bf_1234_refunds", "DatabaseName": "scratch"}}}, nil
		}
		return nil, &smithy.Error{Code: "AccessDeniedException", Message: "not in this fake", Status: 403}
	})
	client := glue.NewFromConfig(smithy.AWSConfig(fake.URL))
	out, err := client.GetTables(context.Background(), &glue.GetTablesInput{DatabaseName: aws.String("scratch")})
	fmt.Println(len(out.TableList), err, fake.Calls())
}

// Check reads a request as the model's operation, or says what is wrong.
func ExampleModel_Check() {
	m, err := smithy.Load("testdata/aws-models/iam-2010-05-08.json")
	if err != nil {
		panic(err)
	}
	for _, body := range []string{
		"Action=ListRoles&Version=2010-05-08&PathPrefix=%2Fbackfill%2F&MaxItems=100",
		"Action=ListRoles&Version=2010-05-08&PathPrefix=%2Fbackfill%2F&MaxItems=all",
	} {
		req, _ := http.NewRequest("POST", "http://127.0.0.1/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		call, err := m.Check(req, []byte(body))
		fmt.Println(call.Operation, call.Input, err)
	}
	// Output:
	// ListRoles map[MaxItems:100 PathPrefix:/backfill/] <nil>
	//  map[] ListRoles: MaxItems: want an integer, got "all"
}
