package glue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsglue "github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"
	"github.com/aws/aws-sdk-go-v2/service/lakeformation"
	lftypes "github.com/aws/aws-sdk-go-v2/service/lakeformation/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// newActor: the source deletes tables and revokes Lake Formation
// permissions with the configuration it reads with, in the artifact's
// account (through the role it assumes there) and region.
func newActor(c *Collector) (remedy.Actor, error) { return c, nil }

// placeFor is an account and region the source reads, reached as it
// reaches them.
func (c *Collector) placeFor(ctx context.Context, account, region string) (awsconf.Place, error) {
	if !slices.Contains(c.Regions, region) {
		return awsconf.Place{}, fmt.Errorf("glue: region %s is not one this source reads", region)
	}
	p, err := c.PlaceOf(ctx, account, region)
	if err != nil {
		return awsconf.Place{}, fmt.Errorf("glue: %w", err)
	}
	return p, nil
}

// clientFor is a Glue client of the table's account and region.
func (c *Collector) clientFor(ctx context.Context, t Table) (*awsglue.Client, awsconf.Place, error) {
	p, err := c.placeFor(ctx, t.Account, t.Region)
	if err != nil {
		return nil, awsconf.Place{}, err
	}
	return awsglue.NewFromConfig(p.Config()), p, nil
}

func (c *Collector) table(a *model.Artifact) (Table, error) {
	t, ok := ParseTable(a.URI)
	if !ok {
		return Table{}, fmt.Errorf("glue: %s is not a table bfaudit can act on", a.URI)
	}
	return t, nil
}

// Read reads the table again (GetTable): gone, or its version and when
// it was last changed.
func (c *Collector) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	if p, ok := ParsePermission(a.URI); ok {
		return c.readPermission(ctx, p)
	}
	t, err := c.table(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	client, p, err := c.clientFor(ctx, t)
	if err != nil {
		return remedy.Observed{}, err
	}
	out, err := awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*awsglue.GetTableOutput, error) {
		return client.GetTable(ctx, &awsglue.GetTableInput{CatalogId: aws.String(t.Account), DatabaseName: aws.String(t.Database), Name: aws.String(t.Name)})
	})
	var gone *gluetypes.EntityNotFoundException
	switch {
	case errors.As(err, &gone):
		return remedy.Observed{}, nil
	case err != nil:
		return remedy.Observed{}, fmt.Errorf("glue: %s: read table %s.%s: %w", p, t.Database, t.Name, err)
	case out.Table == nil || aws.ToString(out.Table.Name) != t.Name:
		return remedy.Observed{}, fmt.Errorf("glue: %s: read table %s.%s: the answer is not that table", p, t.Database, t.Name)
	}
	return remedy.Observed{Found: true, State: tableState(utc(out.Table.UpdateTime), aws.ToString(out.Table.VersionId))}, nil
}

// Expected: the version and change time the audit read; a table changed
// since (written to, its schema altered) is left alone. A permission:
// what the audit saw the principal hold on the resource.
func (c *Collector) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	if _, ok := ParsePermission(a.URI); ok {
		return grantState(a.Attr(AttrPermissions), a.Attr(AttrGrantable), a.Attr(AttrLFCondition))
	}
	return tableState(a.ModifiedAt.Time(), a.Attr(AttrVersionID))
}

func tableState(updated time.Time, version string) map[string]string {
	s := ""
	if !updated.IsZero() {
		s = updated.UTC().Format(time.RFC3339Nano)
	}
	return map[string]string{"updated": s, "version": version}
}

// Act deletes the table (DeleteTable), or revokes the permission
// (RevokePermissions); one already gone is no error.
func (c *Collector) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	if p, ok := ParsePermission(a.URI); ok {
		return c.revoke(ctx, a, p, act)
	}
	t, err := c.table(a)
	if err != nil {
		return err
	}
	if act.Name != remedy.DropTable {
		return fmt.Errorf("glue: no %s on %s", act.Name, a.URI)
	}
	client, p, err := c.clientFor(ctx, t)
	if err != nil {
		return err
	}
	_, err = awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*awsglue.DeleteTableOutput, error) {
		return client.DeleteTable(ctx, &awsglue.DeleteTableInput{CatalogId: aws.String(t.Account), DatabaseName: aws.String(t.Database), Name: aws.String(t.Name)})
	})
	var gone *gluetypes.EntityNotFoundException
	if err != nil && !errors.As(err, &gone) {
		return fmt.Errorf("glue: %s: delete table %s.%s: %w", p, t.Database, t.Name, err)
	}
	return nil
}

// readPermission lists the resource's permissions again (ListPermissions
// on the resource alone: asked with a principal too, it answers what the
// principal may do, not what was granted) and finds the principal's: gone,
// or what it holds now.
func (c *Collector) readPermission(ctx context.Context, p Permission) (remedy.Observed, error) {
	place, err := c.placeFor(ctx, p.Account, p.Region)
	if err != nil {
		return remedy.Observed{}, err
	}
	grants, _, err := listGrants(ctx, lakeformation.NewFromConfig(place.Config()), c.Timeout, place, p.listFilter())
	if err != nil {
		return remedy.Observed{}, fmt.Errorf("glue: %s: Lake Formation permissions on %s: %w", place, p.Resource, err)
	}
	want := PermissionURI("", p)
	for _, g := range grants {
		if PermissionURI("", g.Permission) == want {
			return remedy.Observed{Found: true, State: grantState(strings.Join(g.permissions, ","), strings.Join(g.grantable, ","), g.condition)}, nil
		}
	}
	return remedy.Observed{}, nil
}

// grantState is what a principal holds on a resource: a grant that
// gained or lost a permission, or its grant option or condition, since
// the audit is left alone.
func grantState(permissions, grantable, condition string) map[string]string {
	return map[string]string{"permissions": permissions, "grantable": grantable, "condition": condition}
}

// revoke takes from the principal exactly what the audit saw it hold
// (RevokePermissions); a resource gone since is no error.
func (c *Collector) revoke(ctx context.Context, a *model.Artifact, p Permission, act remedy.Action) error {
	if act.Name != remedy.RevokeGrant {
		return fmt.Errorf("glue: no %s on %s", act.Name, a.URI)
	}
	perms := permissionList(a.Attr(AttrPermissions))
	if len(perms) == 0 {
		return fmt.Errorf("glue: %s: which permissions to revoke is not known: audit again", a.URI)
	}
	place, err := c.placeFor(ctx, p.Account, p.Region)
	if err != nil {
		return err
	}
	in := &lakeformation.RevokePermissionsInput{
		CatalogId:                  aws.String(p.Account),
		Principal:                  &lftypes.DataLakePrincipal{DataLakePrincipalIdentifier: aws.String(p.Principal)},
		Resource:                   p.sdk(),
		Permissions:                perms,
		PermissionsWithGrantOption: permissionList(a.Attr(AttrGrantable)),
	}
	if cond := a.Attr(AttrLFCondition); cond != "" {
		in.Condition = &lftypes.Condition{Expression: aws.String(cond)}
	}
	client := lakeformation.NewFromConfig(place.Config())
	_, err = awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*lakeformation.RevokePermissionsOutput, error) {
		return client.RevokePermissions(ctx, in)
	})
	var gone *lftypes.EntityNotFoundException
	if err != nil && !errors.As(err, &gone) {
		return fmt.Errorf("glue: %s: revoke Lake Formation %s on %s from %s: %w", place, a.Attr(AttrPermissions), p.Resource, p.Principal, err)
	}
	return nil
}

// permissionList reads a comma-separated list of permissions back.
func permissionList(s string) []lftypes.Permission {
	var out []lftypes.Permission
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, lftypes.Permission(p))
		}
	}
	return out
}
