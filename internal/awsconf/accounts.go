package awsconf

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	orgtypes "github.com/aws/aws-sdk-go-v2/service/organizations/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/middleware"
)

// Target is one account of a run and the configuration that reaches it:
// the base configuration, or one that assumes the account's role. Its
// region is the base's; a collector sets each unit's.
type Target struct {
	Account string
	// Role is the ARN assumed to reach the account ("" for the caller's
	// own credentials): said in errors, so a refused role is named.
	Role   string
	Config aws.Config
}

// Accounts resolves the accounts a source reads: those listed, those of
// the organization (one ListAccounts listing; suspended and closed
// accounts are left out), or else the caller's own (GetCallerIdentity).
// The roles are not assumed here: the first call in an account does it,
// so a role that cannot be assumed fails that account's units only.
func Accounts(ctx context.Context, base aws.Config, s Settings, timeout time.Duration) ([]Target, error) {
	targets, err := accounts(ctx, base, s, timeout)
	for i, t := range targets {
		targets[i].Config = forAccount(t.Config, t.Account)
	}
	return targets, err
}

func accounts(ctx context.Context, base aws.Config, s Settings, timeout time.Duration) ([]Target, error) {
	if s.ExportDir != "" {
		// An export: the accounts listed (Check requires them), each
		// read from its folder; no role is assumed.
		out := make([]Target, 0, len(s.Accounts))
		for _, a := range s.Accounts {
			if !slices.ContainsFunc(out, func(t Target) bool { return t.Account == a.ID }) {
				out = append(out, Target{Account: a.ID, Config: base})
			}
		}
		return out, nil
	}
	switch {
	case len(s.Accounts) > 0:
		out := make([]Target, 0, len(s.Accounts))
		for _, a := range s.Accounts {
			if slices.ContainsFunc(out, func(t Target) bool { return t.Account == a.ID }) {
				continue
			}
			out = append(out, assume(base, a.ID, a.Role, timeout))
		}
		return out, nil
	case s.Organization != nil:
		return organization(ctx, base, *s.Organization, timeout)
	}
	client := sts.NewFromConfig(base)
	id, err := Call(ctx, timeout, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
		return client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	})
	if err != nil {
		return nil, fmt.Errorf("the caller's account (sts GetCallerIdentity): %w", err)
	}
	return []Target{{Account: aws.ToString(id.Account), Config: base}}, nil
}

func organization(ctx context.Context, base aws.Config, o Organization, timeout time.Duration) ([]Target, error) {
	pager := organizations.NewListAccountsPaginator(organizations.NewFromConfig(base), &organizations.ListAccountsInput{})
	next := func(ctx context.Context) (*organizations.ListAccountsOutput, error) { return pager.NextPage(ctx) }
	var out []Target
	err := Pages(ctx, timeout, pager.HasMorePages, next, func(page *organizations.ListAccountsOutput) error {
		for _, a := range page.Accounts {
			id := aws.ToString(a.Id)
			if a.Status != orgtypes.AccountStatusActive || slices.Contains(o.Exclude, id) {
				continue
			}
			out = append(out, assume(base, id, o.Role, timeout))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the organization's accounts (organizations ListAccounts): %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the organization lists no active account to read")
	}
	return out, nil
}

// assume is the target of account id reached through role ("": the base
// credentials as they are). The assumed credentials are cached and
// renewed before they expire; the session is named for the audit, so
// CloudTrail tells its calls apart. Each AssumeRole runs under timeout of
// its own: the SDK renews credentials without the deadline of the call
// that needs them, so a stalled STS would hold its connection forever.
func assume(base aws.Config, id, role string, timeout time.Duration) Target {
	if role == "" {
		return Target{Account: id, Config: base}
	}
	arn := RoleARN(role, id, base.Region)
	cfg := base.Copy()
	client := sts.NewFromConfig(base, func(o *sts.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("bfauditDeadline",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					ctx, cancel := context.WithTimeout(ctx, timeout)
					defer cancel()
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
	})
	provider := stscreds.NewAssumeRoleProvider(client, arn, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = "bfaudit"
	})
	cfg.Credentials = aws.NewCredentialsCache(provider)
	return Target{Account: id, Role: arn, Config: cfg}
}
