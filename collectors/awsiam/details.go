package awsiam

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/bfaudit/bfaudit/collectors/awssource"
	"github.com/bfaudit/bfaudit/internal/awsconf"
)

// account is what one GetAccountAuthorizationDetails listing says of an
// account: its principals with their policies, and the documents of its
// customer managed policies.
type account struct {
	roles, users, groups []*principal
	policies             map[string]managedPolicy // by ARN
}

// principal is a role, user or group.
type principal struct {
	kind, name, path, arn string
	tags                  map[string]string
	attached              []attachment
	inline                []inlinePolicy
	boundary              string // the permissions boundary's ARN
	trust                 string // a role's trust policy, as IAM answers it
	lastUsed              time.Time
}

type attachment struct{ arn, name string }

type inlinePolicy struct{ name, document string }

// managedPolicy is a customer managed policy and its default version's
// document, as IAM answers it.
type managedPolicy struct{ name, path, document string }

// entities are what the listing is asked for. AWS managed policies are
// left out: hundreds of large documents, none with a time condition a
// backfill set; one attached is reported by its ARN.
var entities = []types.EntityType{types.EntityTypeRole, types.EntityTypeUser, types.EntityTypeGroup, types.EntityTypeLocalManagedPolicy}

// pageSize keeps a page of roles with their documents to a few MB, well
// under awsconf.MaxAnswerBytes.
const pageSize = 200

// readAccount reads the account's authorization details, page by page
// (awsconf.Pages bounds the pages and each call). An entry without its
// name or ARN is not IAM's answer: the account fails rather than be read
// as holding less than it does. An entry listed twice (a listing that
// moved under the pager) is kept once.
func (c *Collector) readAccount(ctx context.Context, client *iam.Client) (*account, error) {
	acct := &account{policies: map[string]managedPolicy{}}
	seen := map[string]bool{}
	first := func(arn string) bool {
		if seen[arn] {
			return false
		}
		seen[arn] = true
		return true
	}
	pager := iam.NewGetAccountAuthorizationDetailsPaginator(client, &iam.GetAccountAuthorizationDetailsInput{
		Filter: entities, MaxItems: aws.Int32(pageSize)})
	next := func(ctx context.Context) (*iam.GetAccountAuthorizationDetailsOutput, error) {
		return pager.NextPage(ctx)
	}
	err := awsconf.Pages(ctx, c.Timeout, pager.HasMorePages, next, func(page *iam.GetAccountAuthorizationDetailsOutput) error {
		for i, r := range page.RoleDetailList {
			p := &principal{kind: kindRole, name: aws.ToString(r.RoleName), path: aws.ToString(r.Path), arn: aws.ToString(r.Arn),
				tags: tags(r.Tags), attached: attached(r.AttachedManagedPolicies), inline: inline(r.RolePolicyList),
				boundary: boundary(r.PermissionsBoundary), trust: aws.ToString(r.AssumeRolePolicyDocument)}
			if r.RoleLastUsed != nil && r.RoleLastUsed.LastUsedDate != nil {
				p.lastUsed = r.RoleLastUsed.LastUsedDate.UTC()
			}
			if err := complete(p, "role", i); err != nil {
				return err
			}
			if first(p.arn) {
				acct.roles = append(acct.roles, p)
			}
		}
		for i, u := range page.UserDetailList {
			p := &principal{kind: kindUser, name: aws.ToString(u.UserName), path: aws.ToString(u.Path), arn: aws.ToString(u.Arn),
				tags: tags(u.Tags), attached: attached(u.AttachedManagedPolicies), inline: inline(u.UserPolicyList),
				boundary: boundary(u.PermissionsBoundary)}
			if err := complete(p, "user", i); err != nil {
				return err
			}
			if first(p.arn) {
				acct.users = append(acct.users, p)
			}
		}
		for i, g := range page.GroupDetailList {
			p := &principal{kind: kindGroup, name: aws.ToString(g.GroupName), path: aws.ToString(g.Path), arn: aws.ToString(g.Arn),
				attached: attached(g.AttachedManagedPolicies), inline: inline(g.GroupPolicyList)}
			if err := complete(p, "group", i); err != nil {
				return err
			}
			if first(p.arn) {
				acct.groups = append(acct.groups, p)
			}
		}
		for i, mp := range page.Policies {
			arn := aws.ToString(mp.Arn)
			if arn == "" {
				return fmt.Errorf("IAM GetAccountAuthorizationDetails: managed policy %d of a page has no ARN", i)
			}
			p := managedPolicy{name: aws.ToString(mp.PolicyName), path: aws.ToString(mp.Path)}
			for _, v := range mp.PolicyVersionList {
				if v.IsDefaultVersion {
					p.document = aws.ToString(v.Document)
				}
			}
			acct.policies[arn] = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return acct, nil
}

// complete checks what every entry of IAM's listing has.
func complete(p *principal, what string, i int) error {
	if p.name == "" || p.arn == "" {
		return fmt.Errorf("IAM GetAccountAuthorizationDetails: %s %d of a page has no name or ARN", what, i)
	}
	for _, a := range p.attached {
		if a.arn == "" {
			return fmt.Errorf("IAM GetAccountAuthorizationDetails: %s %s: an attached policy has no ARN", what, p.name)
		}
	}
	for _, ip := range p.inline {
		if ip.name == "" {
			return fmt.Errorf("IAM GetAccountAuthorizationDetails: %s %s: an inline policy has no name", what, p.name)
		}
	}
	return nil
}

func tags(ts []types.Tag) map[string]string {
	return awssource.Tags(ts, func(t types.Tag) (*string, *string) { return t.Key, t.Value })
}

func attached(ps []types.AttachedPolicy) []attachment {
	out := make([]attachment, 0, len(ps))
	for _, p := range ps {
		out = append(out, attachment{arn: aws.ToString(p.PolicyArn), name: aws.ToString(p.PolicyName)})
	}
	return out
}

func inline(ps []types.PolicyDetail) []inlinePolicy {
	out := make([]inlinePolicy, 0, len(ps))
	for _, p := range ps {
		out = append(out, inlinePolicy{name: aws.ToString(p.PolicyName), document: aws.ToString(p.PolicyDocument)})
	}
	return out
}

func boundary(b *types.AttachedPermissionsBoundary) string {
	if b == nil {
		return ""
	}
	return aws.ToString(b.PermissionsBoundaryArn)
}
