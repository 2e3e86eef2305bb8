package smithy_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// The organisation path of internal/awsconf, as a collector runs it: one
// endpoint for every service (Settings.Endpoint), so Organizations, STS
// and IAM are served by one fake and told apart by their signatures. The
// accounts come from ListAccounts; each is reached by AssumeRole; one
// account's role is refused, and only that account's call fails.
func TestAnOrganisationThroughAwsconf(t *testing.T) {
	fake := smithy.NewServer(t, smithy.AWS(t, "organizations"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		return map[string]any{"Accounts": []any{
			map[string]any{"Id": "111122223333", "Status": "ACTIVE"},
			map[string]any{"Id": "444455556666", "Status": "ACTIVE"},
			map[string]any{"Id": "777788889999", "Status": "SUSPENDED"},
		}}, nil
	})
	fake.Add(smithy.AWS(t, "sts"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		arn := c.Input["RoleArn"].(string)
		if strings.Contains(arn, "444455556666") {
			return nil, &smithy.Error{Code: "AccessDenied", Message: "not authorized to perform sts:AssumeRole on " + arn, Status: 403}
		}
		return map[string]any{"Credentials": map[string]any{
			"AccessKeyId": "ASIAFAKE", "SecretAccessKey": "assumed-secret", "SessionToken": "assumed-token",
			"Expiration": time.Now().Add(time.Hour),
		}}, nil
	})
	fake.Add(smithy.AWS(t, "iam"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		return map[string]any{"Roles": []any{}}, nil
	})
	settings := awsconf.Settings{Regions: []string{"eu-west-1"}, Endpoint: fake.URL, Organization: &awsconf.Organization{Role: "bfaudit-read"}}
	cfg, err := awsconf.Load(context.Background(), settings,
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIDFAKE", "base-secret", "")))
	if err != nil {
		t.Fatal(err)
	}
	targets, err := awsconf.Accounts(context.Background(), cfg, settings, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, target := range targets {
		client := iam.NewFromConfig(target.Config)
		if _, err := client.ListRoles(context.Background(), &iam.ListRolesInput{PathPrefix: aws.String("/backfill/")}); err != nil {
			failed = append(failed, target.Account)
			if !strings.Contains(err.Error(), "AccessDenied") {
				t.Errorf("%s: %v, want the refused AssumeRole", target.Account, err)
			}
		}
	}
	if len(targets) != 2 || !slices.Equal(failed, []string{"444455556666"}) {
		t.Errorf("targets %d, failed %v: want two active accounts, the second refused", len(targets), failed)
	}
	if calls := strings.Join(fake.Calls(), ","); calls != "ListAccounts,AssumeRole,ListRoles,AssumeRole" {
		t.Errorf("calls %s", calls)
	}
}
