package smithy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// The calls the AWS collectors and their fix actions are to make, sent by
// the SDK in go.mod with the members they will set, each checked against
// its model: a request the SDK serialises in a way the checker misreads
// fails here first. The fakes answer every call with an error; only the
// requests are under test.
func TestTheCollectorsCallsKeepTheModels(t *testing.T) {
	s, arn, ctx := aws.String, aws.String("arn:aws:iam::111122223333:role/bf/x"), context.Background()
	probe := func(smithy.Call) (map[string]any, *smithy.Error) {
		return nil, &smithy.Error{Code: "Probe", Message: "only the request is under test"}
	}
	fake := func(service string) aws.Config {
		return smithy.AWSConfig(smithy.NewServer(t, smithy.AWS(t, service), probe).URL)
	}
	i, st, o := iam.NewFromConfig(fake("iam")), sts.NewFromConfig(fake("sts")), organizations.NewFromConfig(fake("organizations"))
	g, sc := glue.NewFromConfig(fake("glue")), scheduler.NewFromConfig(fake("scheduler"))
	q, n := sqs.NewFromConfig(fake("sqs")), sns.NewFromConfig(fake("sns"))
	calls := map[string]func() error{
		"iam ListRoles": func() error {
			_, err := i.ListRoles(ctx, &iam.ListRolesInput{PathPrefix: s("/bf/"), Marker: s("m"), MaxItems: aws.Int32(100)})
			return err
		},
		"iam ListUsers":  func() error { _, err := i.ListUsers(ctx, &iam.ListUsersInput{PathPrefix: s("/")}); return err },
		"iam ListGroups": func() error { _, err := i.ListGroups(ctx, &iam.ListGroupsInput{}); return err },
		"iam ListRolePolicies": func() error {
			_, err := i.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: s("r")})
			return err
		},
		"iam ListAttachedRolePolicies": func() error {
			_, err := i.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: s("r")})
			return err
		},
		"iam GetPolicyVersion": func() error {
			_, err := i.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: arn, VersionId: s("v1")})
			return err
		},
		"iam ListAccessKeys": func() error { _, err := i.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: s("u")}); return err },
		"iam GetAccessKeyLastUsed": func() error {
			_, err := i.GetAccessKeyLastUsed(ctx, &iam.GetAccessKeyLastUsedInput{AccessKeyId: s("AKIAEXAMPLE0000001")})
			return err
		},
		"iam ListRoleTags": func() error { _, err := i.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: s("r")}); return err },
		"iam UpdateAccessKey": func() error {
			_, err := i.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{AccessKeyId: s("AKIAEXAMPLE0000001"), UserName: s("u"), Status: iamtypes.StatusTypeInactive})
			return err
		},
		"iam DeleteAccessKey": func() error {
			_, err := i.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{AccessKeyId: s("AKIAEXAMPLE0000001"), UserName: s("u")})
			return err
		},
		"iam DetachRolePolicy": func() error {
			_, err := i.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: s("r"), PolicyArn: arn})
			return err
		},
		"iam PutRolePolicy": func() error {
			_, err := i.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: s("r"), PolicyName: s("p"), PolicyDocument: s(`{"Version":"2012-10-17"}`)})
			return err
		},
		"iam GetAccountAuthorizationDetails": func() error {
			_, err := i.GetAccountAuthorizationDetails(ctx, &iam.GetAccountAuthorizationDetailsInput{Filter: []iamtypes.EntityType{iamtypes.EntityTypeRole, iamtypes.EntityTypeUser}})
			return err
		},
		"sts GetCallerIdentity": func() error { _, err := st.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); return err },
		"organizations DescribeAccount": func() error {
			_, err := o.DescribeAccount(ctx, &organizations.DescribeAccountInput{AccountId: s("111122223333")})
			return err
		},
		"glue GetDatabases": func() error {
			_, err := g.GetDatabases(ctx, &glue.GetDatabasesInput{MaxResults: aws.Int32(100), NextToken: s("t")})
			return err
		},
		"glue GetTable": func() error {
			_, err := g.GetTable(ctx, &glue.GetTableInput{DatabaseName: s("d"), Name: s("t")})
			return err
		},
		"glue DeleteTable": func() error {
			_, err := g.DeleteTable(ctx, &glue.DeleteTableInput{DatabaseName: s("d"), Name: s("t")})
			return err
		},
		"glue GetTags": func() error {
			_, err := g.GetTags(ctx, &glue.GetTagsInput{ResourceArn: s("arn:aws:glue:us-east-1:111122223333:table/d/t")})
			return err
		},
		"scheduler ListScheduleGroups": func() error {
			_, err := sc.ListScheduleGroups(ctx, &scheduler.ListScheduleGroupsInput{NamePrefix: s("bf"), NextToken: s("t")})
			return err
		},
		"scheduler DeleteSchedule": func() error {
			_, err := sc.DeleteSchedule(ctx, &scheduler.DeleteScheduleInput{Name: s("bf-1234 replay"), GroupName: s("backfills")})
			return err
		},
		"scheduler ListTagsForResource": func() error {
			_, err := sc.ListTagsForResource(ctx, &scheduler.ListTagsForResourceInput{ResourceArn: s("arn:aws:scheduler:us-east-1:111122223333:schedule-group/backfills")})
			return err
		},
		"sqs GetQueueAttributes": func() error {
			_, err := q.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: s("http://q/1/x"), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
			return err
		},
		"sqs ListDeadLetterSourceQueues": func() error {
			_, err := q.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: s("http://q/1/x")})
			return err
		},
		"sqs ListQueueTags": func() error {
			_, err := q.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: s("http://q/1/x")})
			return err
		},
		"sqs PurgeQueue": func() error {
			_, err := q.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: s("http://q/1/x")})
			return err
		},
		"sqs DeleteQueue": func() error {
			_, err := q.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: s("http://q/1/x")})
			return err
		},
		"sns ListTopics": func() error { _, err := n.ListTopics(ctx, &sns.ListTopicsInput{NextToken: s("t")}); return err },
		"sns ListSubscriptionsByTopic": func() error {
			_, err := n.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: s("arn:aws:sns:us-east-1:111122223333:t")})
			return err
		},
		"sns GetSubscriptionAttributes": func() error {
			_, err := n.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: s("arn:aws:sns:us-east-1:111122223333:t:1")})
			return err
		},
		"sns SetTopicAttributes": func() error {
			_, err := n.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: s("arn:aws:sns:us-east-1:111122223333:t"), AttributeName: s("DisplayName"), AttributeValue: s("x")})
			return err
		},
		"sns Unsubscribe": func() error {
			_, err := n.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: s("arn:aws:sns:us-east-1:111122223333:t:1")})
			return err
		},
	}
	for name, call := range calls {
		var api interface{ ErrorCode() string }
		if err := call(); !errors.As(err, &api) || api.ErrorCode() != "Probe" {
			t.Errorf("%s: %v, want the fake's Probe error (the request reached the handler)", name, err)
		}
	}
}
