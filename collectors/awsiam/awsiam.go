// Package awsiam collects the access a backfill was given in AWS: the
// policies of the roles, users and groups made for it (attached and
// inline, with the end their aws:CurrentTime conditions put on them, the
// permissions boundary, and who outside the account may assume a role),
// the statements of other principals' inline policies written for it,
// and the access keys of its users, with when they were last used
// (docs/practice.md, "Plan before you run" and "Close the loop in order").
// IAM is global: an account is one unit, read through the role the
// source assumes in it.
package awsiam

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/awssource"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sampleConfig string

func init() { collectors.Register("awsiam", New, sampleConfig) }

// defaultRegion is where IAM's calls go when no region is set: IAM is
// global, and a region only picks the partition (aws, aws-cn, aws-us-gov)
// and the STS endpoint roles are assumed through.
const defaultRegion = "us-east-1"

// New returns an awsiam collector with its defaults filled in.
func New() *Collector { return &Collector{Regional: awssource.NewGlobal("awsiam", defaultRegion)} }

// Collector reads IAM in each account of its settings
// (awssource.Regional: its settings, accounts and units, one per
// account).
type Collector struct {
	awssource.Regional `mapstructure:",squash"`
}

// CollectUnit reads one account: every role, user, group and customer
// managed policy in one paged listing, then the access keys of the users
// tied to a backfill. The listing failing fails the account; one user's
// keys failing is that user's error (below the account), and the rest
// is reported.
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	p, err := c.Place(unit)
	if err != nil {
		return err
	}
	client := iam.NewFromConfig(p.Config())
	acct, err := c.readAccount(ctx, client)
	if err != nil {
		return c.accountError(p.Target, err)
	}
	sink.AddRead(unit, "roles", len(acct.roles), 0)
	sink.AddRead(unit, "users", len(acct.users), 0)
	sink.AddRead(unit, "groups", len(acct.groups), 0)
	sink.AddRead(unit, "managed policies", len(acct.policies), 0)
	for _, p := range acct.principals() {
		id, how := c.tie(unit, p)
		c.emitGrants(unit, p, id, how, acct, sink)
		if id != "" && p.kind == kindUser {
			c.collectKeys(ctx, client, unit, p, id, how, sink)
		}
	}
	return nil
}

// accountError names the account and, when one was assumed, the role:
// a refused AssumeRole says "STS AssumeRole" (awsconf.Summarize).
func (c *Collector) accountError(t awsconf.Target, err error) error {
	if t.Role != "" {
		return fmt.Errorf("awsiam: account %s (through role %s): %w", t.Account, t.Role, err)
	}
	return fmt.Errorf("awsiam: account %s: %w", t.Account, err)
}

// tie says which backfill a principal belongs to and how, in the order
// of docs/correlation.md: a tag, a plan's asset (its URI), a plan's
// elevated access (its ARN or name), its name, a backfill id in its path
// (/backfill/bf-1234/).
func (c *Collector) tie(account string, p *principal) (id, how string) {
	sel := c.Env.Selector
	if id, ok := sel.FromLabels(p.tags); ok {
		return id, "label"
	}
	if id, ok := sel.Assets[PrincipalURI(c.Env.Source, account, p.kind, p.name)]; ok {
		return id, "asset"
	}
	for _, who := range []string{p.arn, p.name} {
		if id, ok := sel.FromPrincipal(who); ok {
			return id, "declared"
		}
	}
	if id, ok := sel.FromName(p.name); ok {
		return id, "name"
	}
	if id, ok := sel.FromText(p.path); ok {
		return id, "name"
	}
	return "", ""
}

// artifact is the common part of what this collector reports.
func (c *Collector) artifact(kind model.Kind, scope, uri, name, id, how string) model.Artifact {
	return model.Artifact{Kind: kind, System: "awsiam", Source: c.Env.Source, Scope: scope, URI: uri, Name: name,
		BackfillID: id, Correlation: how, State: model.StateActive}
}

// principals lists the account's roles, users and groups in a stable
// order.
func (a *account) principals() []*principal {
	out := slices.Concat(a.roles, a.users, a.groups)
	slices.SortFunc(out, func(x, y *principal) int {
		return cmp.Or(cmp.Compare(x.kind, y.kind), cmp.Compare(x.name, y.name))
	})
	return out
}
