package awsiam

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// actor applies the commands of remedy.go through the SDK, in the account
// each artifact names, reached as the collector reads it (the same
// configuration, the same role). IAM has no version to write against, so
// each act re-reads just before it: a key created anew, a policy or
// statement edited since the audit is left alone.
type actor struct{ c *Collector }

func newActor(c *Collector) *actor { return &actor{c: c} }

// client is the IAM client of an account, reached as the audit reached
// it (awssource.Regional.PlaceOf): a plan that never acts on IAM calls
// nothing.
func (s *actor) client(ctx context.Context, account string) (*iam.Client, error) {
	p, err := s.c.PlaceOf(context.WithoutCancel(ctx), account, s.c.Regions[0])
	if err != nil {
		return nil, fmt.Errorf("awsiam: %w", err)
	}
	return iam.NewFromConfig(p.Config()), nil
}

func (s *actor) object(a *model.Artifact) (Object, error) {
	o, ok := ParseURI(a.URI)
	if !ok || (o.KeyID == "" && o.PolicyARN == "" && o.Inline == "") {
		return o, fmt.Errorf("awsiam: %s is not an artifact bfaudit can act on", a.URI)
	}
	return o, nil
}

// Hash keys of Read and Expected.
const (
	stateCreated   = "created"
	stateStatus    = "status"
	stateDocument  = "document_hash"
	stateStatement = "statement_hash"
)

func (s *actor) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	o, err := s.object(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	client, err := s.client(ctx, o.Account)
	if err != nil {
		return remedy.Observed{}, err
	}
	switch {
	case o.KeyID != "":
		k, err := s.key(ctx, client, o)
		if err != nil || k == nil {
			return remedy.Observed{}, err
		}
		st := map[string]string{stateStatus: string(k.Status)}
		if k.CreateDate != nil {
			st[stateCreated] = k.CreateDate.UTC().Format(time.RFC3339)
		}
		return remedy.Observed{Found: true, State: st}, nil
	case o.PolicyARN != "":
		on, err := s.attached(ctx, client, o)
		if err != nil || !on {
			return remedy.Observed{}, err
		}
		st := map[string]string{}
		if a.Attr(AttrPolicyType) == policyManaged {
			doc, err := s.managedDocument(ctx, client, o.PolicyARN)
			if err != nil {
				return remedy.Observed{}, err
			}
			st[stateDocument] = doc.hash()
		}
		return remedy.Observed{Found: true, State: st}, nil
	}
	doc, found, err := s.inline(ctx, client, o)
	if err != nil || !found {
		return remedy.Observed{}, err
	}
	if o.Statement == "" {
		return remedy.Observed{Found: true, State: map[string]string{stateDocument: doc.hash()}}, nil
	}
	for _, st := range doc.statements {
		if st.key() == o.Statement {
			return remedy.Observed{Found: true, State: map[string]string{stateStatement: st.hash()}}, nil
		}
	}
	return remedy.Observed{}, nil
}

// Expected is what the audit saw: the key's creation (a key deactivated
// since, by the step before, is still the key to delete), the policy's
// or the statement's text.
func (s *actor) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	o, _ := ParseURI(a.URI)
	switch {
	case o.KeyID != "":
		if a.CreatedAt.IsZero() {
			return map[string]string{}
		}
		return map[string]string{stateCreated: a.CreatedAt.Time().UTC().Format(time.RFC3339)}
	case o.Statement != "":
		return map[string]string{stateStatement: a.Attr(AttrStatementHash)}
	case o.Inline != "" || a.Attr(AttrPolicyType) == policyManaged:
		return map[string]string{stateDocument: a.Attr(AttrDocumentHash)}
	}
	return map[string]string{}
}

// Act deactivates or deletes the key, detaches the policy, deletes the
// inline policy, or writes it back without the statement (deleting it
// when none is left). Something gone in between is done either way.
func (s *actor) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	o, err := s.object(a)
	if err != nil {
		return err
	}
	client, err := s.client(ctx, o.Account)
	if err != nil {
		return err
	}
	var what string
	switch {
	case o.KeyID != "" && act.Name == remedy.DisableKey:
		what = "deactivate access key " + o.KeyID + " of user " + o.Name
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.UpdateAccessKeyOutput, error) {
			return client.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: &o.Name, AccessKeyId: &o.KeyID, Status: types.StatusTypeInactive})
		})
	case o.KeyID != "" && act.Name == remedy.DeleteKey:
		what = "delete access key " + o.KeyID + " of user " + o.Name
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.DeleteAccessKeyOutput, error) {
			return client.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: &o.Name, AccessKeyId: &o.KeyID})
		})
	case o.PolicyARN != "" && act.Name == remedy.RevokeGrant:
		what = "detach policy " + o.PolicyARN + " from " + o.Kind + " " + o.Name
		err = s.detach(ctx, client, o)
	case o.Statement == "" && o.Inline != "" && act.Name == remedy.RevokeGrant:
		what = "delete inline policy " + o.Inline + " of " + o.Kind + " " + o.Name
		err = s.deleteInline(ctx, client, o)
	case o.Statement != "" && act.Name == remedy.RevokeGrant:
		what = "remove statement " + o.Statement + " from inline policy " + o.Inline + " of " + o.Kind + " " + o.Name
		err = s.removeStatement(ctx, client, o)
	default:
		return fmt.Errorf("awsiam: no %s for %s", act.Name, a.URI)
	}
	if awsconf.Code(err) == "NoSuchEntity" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("awsiam: account %s: %s: %w", o.Account, what, err)
	}
	return nil
}

// key finds the user's access key; nil when it is gone.
func (s *actor) key(ctx context.Context, client *iam.Client, o Object) (*types.AccessKeyMetadata, error) {
	pager := iam.NewListAccessKeysPaginator(client, &iam.ListAccessKeysInput{UserName: &o.Name})
	var found *types.AccessKeyMetadata
	next := func(ctx context.Context) (*iam.ListAccessKeysOutput, error) { return pager.NextPage(ctx) }
	err := awsconf.Pages(ctx, s.c.Timeout, pager.HasMorePages, next, func(page *iam.ListAccessKeysOutput) error {
		for _, k := range page.AccessKeyMetadata {
			if aws.ToString(k.AccessKeyId) == o.KeyID {
				found = &k
			}
		}
		return nil
	})
	if awsconf.Code(err) == "NoSuchEntity" {
		return nil, nil // the user is gone, and its keys with it
	}
	if err != nil {
		return nil, fmt.Errorf("awsiam: account %s: access keys of user %s: %w", o.Account, o.Name, err)
	}
	return found, nil
}

// attached reports whether the managed policy is still attached.
func (s *actor) attached(ctx context.Context, client *iam.Client, o Object) (bool, error) {
	var on bool
	each := func(ps []types.AttachedPolicy) error {
		for _, p := range ps {
			on = on || aws.ToString(p.PolicyArn) == o.PolicyARN
		}
		return nil
	}
	var err error
	switch o.Kind {
	case kindRole:
		pager := iam.NewListAttachedRolePoliciesPaginator(client, &iam.ListAttachedRolePoliciesInput{RoleName: &o.Name})
		err = awsconf.Pages(ctx, s.c.Timeout, pager.HasMorePages, func(ctx context.Context) (*iam.ListAttachedRolePoliciesOutput, error) { return pager.NextPage(ctx) },
			func(p *iam.ListAttachedRolePoliciesOutput) error { return each(p.AttachedPolicies) })
	case kindUser:
		pager := iam.NewListAttachedUserPoliciesPaginator(client, &iam.ListAttachedUserPoliciesInput{UserName: &o.Name})
		err = awsconf.Pages(ctx, s.c.Timeout, pager.HasMorePages, func(ctx context.Context) (*iam.ListAttachedUserPoliciesOutput, error) { return pager.NextPage(ctx) },
			func(p *iam.ListAttachedUserPoliciesOutput) error { return each(p.AttachedPolicies) })
	case kindGroup:
		pager := iam.NewListAttachedGroupPoliciesPaginator(client, &iam.ListAttachedGroupPoliciesInput{GroupName: &o.Name})
		err = awsconf.Pages(ctx, s.c.Timeout, pager.HasMorePages, func(ctx context.Context) (*iam.ListAttachedGroupPoliciesOutput, error) { return pager.NextPage(ctx) },
			func(p *iam.ListAttachedGroupPoliciesOutput) error { return each(p.AttachedPolicies) })
	}
	if awsconf.Code(err) == "NoSuchEntity" {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("awsiam: account %s: policies attached to %s %s: %w", o.Account, o.Kind, o.Name, err)
	}
	return on, nil
}

// managedDocument reads a customer managed policy's default version.
func (s *actor) managedDocument(ctx context.Context, client *iam.Client, arn string) (document, error) {
	p, err := awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.GetPolicyOutput, error) {
		return client.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: &arn})
	})
	if err != nil {
		return document{}, fmt.Errorf("awsiam: policy %s: %w", arn, err)
	}
	if p.Policy == nil || p.Policy.DefaultVersionId == nil {
		return document{}, fmt.Errorf("awsiam: policy %s: IAM's answer names no default version", arn)
	}
	v, err := awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.GetPolicyVersionOutput, error) {
		return client.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: &arn, VersionId: p.Policy.DefaultVersionId})
	})
	if err != nil {
		return document{}, fmt.Errorf("awsiam: policy %s version %s: %w", arn, aws.ToString(p.Policy.DefaultVersionId), err)
	}
	if v.PolicyVersion == nil {
		return document{}, fmt.Errorf("awsiam: policy %s: IAM's answer holds no version", arn)
	}
	return parseDocument(aws.ToString(v.PolicyVersion.Document))
}

// inline reads the principal's inline policy; found is false when it (or
// the principal) is gone.
func (s *actor) inline(ctx context.Context, client *iam.Client, o Object) (doc document, found bool, err error) {
	var text *string
	switch o.Kind {
	case kindRole:
		var out *iam.GetRolePolicyOutput
		if out, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.GetRolePolicyOutput, error) {
			return client.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: &o.Name, PolicyName: &o.Inline})
		}); err == nil {
			text = out.PolicyDocument
		}
	case kindUser:
		var out *iam.GetUserPolicyOutput
		if out, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.GetUserPolicyOutput, error) {
			return client.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: &o.Name, PolicyName: &o.Inline})
		}); err == nil {
			text = out.PolicyDocument
		}
	case kindGroup:
		var out *iam.GetGroupPolicyOutput
		if out, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.GetGroupPolicyOutput, error) {
			return client.GetGroupPolicy(ctx, &iam.GetGroupPolicyInput{GroupName: &o.Name, PolicyName: &o.Inline})
		}); err == nil {
			text = out.PolicyDocument
		}
	}
	if awsconf.Code(err) == "NoSuchEntity" {
		return document{}, false, nil
	}
	if err != nil {
		return document{}, false, fmt.Errorf("awsiam: account %s: inline policy %s of %s %s: %w", o.Account, o.Inline, o.Kind, o.Name, err)
	}
	doc, err = parseDocument(aws.ToString(text))
	if err != nil {
		return document{}, false, fmt.Errorf("awsiam: account %s: inline policy %s of %s %s: %w", o.Account, o.Inline, o.Kind, o.Name, err)
	}
	return doc, true, nil
}

func (s *actor) detach(ctx context.Context, client *iam.Client, o Object) error {
	var err error
	switch o.Kind {
	case kindRole:
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.DetachRolePolicyOutput, error) {
			return client.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: &o.Name, PolicyArn: &o.PolicyARN})
		})
	case kindUser:
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.DetachUserPolicyOutput, error) {
			return client.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: &o.Name, PolicyArn: &o.PolicyARN})
		})
	case kindGroup:
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.DetachGroupPolicyOutput, error) {
			return client.DetachGroupPolicy(ctx, &iam.DetachGroupPolicyInput{GroupName: &o.Name, PolicyArn: &o.PolicyARN})
		})
	}
	return err
}

func (s *actor) deleteInline(ctx context.Context, client *iam.Client, o Object) error {
	var err error
	switch o.Kind {
	case kindRole:
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.DeleteRolePolicyOutput, error) {
			return client.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: &o.Name, PolicyName: &o.Inline})
		})
	case kindUser:
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.DeleteUserPolicyOutput, error) {
			return client.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: &o.Name, PolicyName: &o.Inline})
		})
	case kindGroup:
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.DeleteGroupPolicyOutput, error) {
			return client.DeleteGroupPolicy(ctx, &iam.DeleteGroupPolicyInput{GroupName: &o.Name, PolicyName: &o.Inline})
		})
	}
	return err
}

// removeStatement reads the inline policy again and writes it back
// without the statement, or deletes it when that was its last.
func (s *actor) removeStatement(ctx context.Context, client *iam.Client, o Object) error {
	doc, found, err := s.inline(ctx, client, o)
	if err != nil || !found {
		return err
	}
	after, left, err := doc.without([]string{o.Statement})
	if err != nil {
		return err
	}
	if left == len(doc.statements) {
		return nil // gone in between
	}
	if left == 0 {
		return s.deleteInline(ctx, client, o)
	}
	switch o.Kind {
	case kindRole:
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.PutRolePolicyOutput, error) {
			return client.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: &o.Name, PolicyName: &o.Inline, PolicyDocument: &after})
		})
	case kindUser:
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.PutUserPolicyOutput, error) {
			return client.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: &o.Name, PolicyName: &o.Inline, PolicyDocument: &after})
		})
	case kindGroup:
		_, err = awsconf.Call(ctx, s.c.Timeout, func(ctx context.Context) (*iam.PutGroupPolicyOutput, error) {
			return client.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: &o.Name, PolicyName: &o.Inline, PolicyDocument: &after})
		})
	}
	return err
}
