package smithy_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// The IAM fake (awsQuery): three roles, two under /backfill/, served a page
// of one at a time.
func iamFake(t *testing.T) *smithy.Server {
	created := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	roles := []map[string]any{
		{"RoleName": "bf-1234-replay", "Path": "/backfill/bf-1234/"},
		{"RoleName": "bf-3100-ledger", "Path": "/backfill/bf-3100/"},
		{"RoleName": "ops", "Path": "/"},
	}
	for _, r := range roles {
		r["RoleId"] = "AROA" + strings.ToUpper(strings.ReplaceAll(r["RoleName"].(string), "-", ""))
		r["Arn"] = "arn:aws:iam::111122223333:role" + r["Path"].(string) + r["RoleName"].(string)
		r["CreateDate"] = created
		r["Tags"] = []map[string]any{{"Key": "backfill", "Value": "BF-1234"}}
	}
	return smithy.NewServer(t, smithy.AWS(t, "iam"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		switch c.Operation {
		case "ListRoles":
			var match []map[string]any
			for _, r := range roles {
				if p, _ := c.Input["PathPrefix"].(string); strings.HasPrefix(r["Path"].(string), p) {
					match = append(match, r)
				}
			}
			start := 0
			if c.Input["Marker"] == "page-2" {
				start = 1
			}
			out := map[string]any{"Roles": match[start : start+1], "IsTruncated": start+1 < len(match)}
			if start+1 < len(match) {
				out["Marker"] = "page-2"
			}
			return out, nil
		case "GetRolePolicy":
			if c.Input["RoleName"] != "bf-1234-replay" {
				return nil, &smithy.Error{Code: "NoSuchEntityException", Message: "The role with name " + c.Input["RoleName"].(string) + " cannot be found."}
			}
			return map[string]any{
				"RoleName":       "bf-1234-replay",
				"PolicyName":     c.Input["PolicyName"],
				"PolicyDocument": url.QueryEscape(`{"Version":"2012-10-17","Statement":[]}`),
			}, nil
		}
		return nil, &smithy.Error{Code: "AccessDenied", Message: "not in this fake", Status: 403}
	})
}

func TestIAMListRolesPagesUnderAPathPrefix(t *testing.T) {
	fake := iamFake(t)
	client := iam.NewFromConfig(smithy.AWSConfig(fake.URL))
	var names []string
	pages := iam.NewListRolesPaginator(client, &iam.ListRolesInput{PathPrefix: aws.String("/backfill/")})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Roles {
			names = append(names, aws.ToString(r.RoleName))
			if want := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC); !aws.ToTime(r.CreateDate).Equal(want) {
				t.Errorf("%s: CreateDate %v, want %v", *r.RoleName, r.CreateDate, want)
			}
			if len(r.Tags) != 1 || aws.ToString(r.Tags[0].Value) != "BF-1234" {
				t.Errorf("%s: tags %+v", *r.RoleName, r.Tags)
			}
		}
	}
	if strings.Join(names, ",") != "bf-1234-replay,bf-3100-ledger" {
		t.Errorf("roles %v, want the two under /backfill/", names)
	}
	if got := strings.Join(fake.Calls(), ","); got != "ListRoles,ListRoles" {
		t.Errorf("calls %s, want two pages", got)
	}
}

func TestIAMGetRolePolicyAndNoSuchEntity(t *testing.T) {
	client := iam.NewFromConfig(smithy.AWSConfig(iamFake(t).URL))
	out, err := client.GetRolePolicy(context.Background(), &iam.GetRolePolicyInput{RoleName: aws.String("bf-1234-replay"), PolicyName: aws.String("elevated")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.PolicyName) != "elevated" || !strings.Contains(aws.ToString(out.PolicyDocument), "2012-10-17") {
		t.Errorf("policy %+v", out)
	}
	_, err = client.GetRolePolicy(context.Background(), &iam.GetRolePolicyInput{RoleName: aws.String("gone"), PolicyName: aws.String("elevated")})
	var missing *types.NoSuchEntityException
	if !errors.As(err, &missing) || !strings.Contains(missing.ErrorMessage(), "gone cannot be found") {
		t.Errorf("error %v (%T), want a NoSuchEntityException with the message", err, err)
	}
	_, err = client.ListUsers(context.Background(), &iam.ListUsersInput{})
	if err == nil || !strings.Contains(err.Error(), "AccessDenied") {
		t.Errorf("error %v, want AccessDenied (a code the model leaves out, sent as given)", err)
	}
}

func TestSTSAssumeRoleAnswersCredentials(t *testing.T) {
	expires := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var got smithy.Call
	fake := smithy.NewServer(t, smithy.AWS(t, "sts"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		got = c
		return map[string]any{
			"Credentials": map[string]any{
				"AccessKeyId": "ASIAFAKE", "SecretAccessKey": "fake-secret", "SessionToken": "fake-token", "Expiration": expires,
			},
			"AssumedRoleUser": map[string]any{"AssumedRoleId": "AROAFAKE:bfaudit", "Arn": "arn:aws:sts::444455556666:assumed-role/audit/bfaudit"},
		}, nil
	})
	out, err := sts.NewFromConfig(smithy.AWSConfig(fake.URL)).AssumeRole(context.Background(), &sts.AssumeRoleInput{
		RoleArn: aws.String("arn:aws:iam::444455556666:role/audit"), RoleSessionName: aws.String("bfaudit"), DurationSeconds: aws.Int32(900),
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.Credentials.SessionToken) != "fake-token" || !aws.ToTime(out.Credentials.Expiration).Equal(expires) {
		t.Errorf("credentials %+v", out.Credentials)
	}
	if got.Input["DurationSeconds"] != int64(900) || got.Input["RoleSessionName"] != "bfaudit" {
		t.Errorf("input read %v", got.Input)
	}
}
