package smithy_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/bfaudit/bfaudit/testkit/smithy"
)

func TestOrganizationsListAccounts(t *testing.T) {
	joined := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	fake := smithy.NewServer(t, smithy.AWS(t, "organizations"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		account := func(id string) map[string]any {
			return map[string]any{"Id": id, "Name": "data-" + id, "Status": "ACTIVE", "JoinedTimestamp": joined}
		}
		if c.Input["NextToken"] == nil {
			return map[string]any{"Accounts": []any{account("111122223333")}, "NextToken": "2"}, nil
		}
		return map[string]any{"Accounts": []any{account("444455556666")}}, nil
	})
	client := organizations.NewFromConfig(smithy.AWSConfig(fake.URL))
	var ids []string
	for pages := organizations.NewListAccountsPaginator(client, &organizations.ListAccountsInput{}); pages.HasMorePages(); {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range page.Accounts {
			ids = append(ids, aws.ToString(a.Id))
			if !aws.ToTime(a.JoinedTimestamp).Equal(joined) || a.Status != "ACTIVE" {
				t.Errorf("account %+v", a)
			}
		}
	}
	if strings.Join(ids, ",") != "111122223333,444455556666" {
		t.Errorf("accounts %v", ids)
	}
}

func TestGlueGetTablesTimestampsAndEntityNotFound(t *testing.T) {
	updated := time.Date(2026, 11, 20, 8, 15, 30, 0, time.UTC)
	fake := smithy.NewServer(t, smithy.AWS(t, "glue"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		if c.Input["DatabaseName"] != "scratch" {
			return nil, &smithy.Error{Code: "EntityNotFoundException", Message: "Database " + c.Input["DatabaseName"].(string) + " not found."}
		}
		return map[string]any{"TableList": []any{map[string]any{
			"Name": "bf_1234_refunds", "DatabaseName": "scratch", "UpdateTime": updated,
			"Parameters": map[string]string{"backfill": "BF-1234"},
		}}}, nil
	})
	client := glue.NewFromConfig(smithy.AWSConfig(fake.URL))
	out, err := client.GetTables(context.Background(), &glue.GetTablesInput{DatabaseName: aws.String("scratch")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.TableList) != 1 || !aws.ToTime(out.TableList[0].UpdateTime).Equal(updated) || out.TableList[0].Parameters["backfill"] != "BF-1234" {
		t.Errorf("tables %+v", out.TableList)
	}
	_, err = client.GetTables(context.Background(), &glue.GetTablesInput{DatabaseName: aws.String("gone")})
	var missing *gluetypes.EntityNotFoundException
	if !errors.As(err, &missing) || !strings.Contains(missing.ErrorMessage(), "gone not found") {
		t.Errorf("error %v (%T), want an EntityNotFoundException with its message", err, err)
	}
}

// SQS speaks awsJson1_0: Checking sits in front of another fake (a bare
// handler here; goaws in a collector's test, where it speaks JSON).
func TestSQSListQueuesThroughChecking(t *testing.T) {
	var served int
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served++
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Write([]byte(`{"QueueUrls":["http://127.0.0.1/111122223333/bf-1234-retry"]}`))
	})
	srv := httptest.NewServer(smithy.Checking(smithy.AWS(t, "sqs"), t, backend))
	defer srv.Close()
	out, err := sqs.NewFromConfig(smithy.AWSConfig(srv.URL)).ListQueues(context.Background(), &sqs.ListQueuesInput{QueueNamePrefix: aws.String("bf-")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.QueueUrls) != 1 || served != 1 {
		t.Errorf("queues %v after %d requests served", out.QueueUrls, served)
	}
}
