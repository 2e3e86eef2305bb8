package glue

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lakeformation"
	lftypes "github.com/aws/aws-sdk-go-v2/service/lakeformation/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a Lake Formation grant, beside model.AttrPrincipal,
// model.AttrRole (what it grants in words: its permissions on its
// resource) and model.AttrTimeBound (always false: Lake Formation has no
// expiring grant).
const (
	AttrPermissions   = "permissions"     // the permissions held, comma-separated, sorted: what a revocation takes
	AttrGrantable     = "grantable"       // the permissions held with the grant option, comma-separated
	AttrResource      = "resource"        // what the permission is on, in words
	AttrLFCondition   = "lf_condition"    // the grant's Lake Formation condition (a Cedar expression), not an IAM one
	AttrLastUpdatedBy = "last_updated_by" // who last changed the grant, as Lake Formation records it
)

// maxPermissions is the largest page ListPermissions answers.
const maxPermissions = 1000

// allowedPrincipals is Lake Formation's name for "whoever IAM allows":
// its grants on a database or table are the switch that leaves the
// resource to IAM alone (Lake Formation's default), not access anyone
// was given for a replay.
const allowedPrincipals = "IAM_ALLOWED_PRINCIPALS"

// grant is one principal's permissions on one resource, the entries
// ListPermissions answers for them merged.
type grant struct {
	Permission
	permissions, grantable []string // sorted
	condition              string
	updated                time.Time
	updatedBy              string
}

// lakeFormationScope is where the unit's Lake Formation permissions are
// read: below the account and region, beside its databases, so that a
// failed read leaves the tables answered and the grants not.
func lakeFormationScope(p awsconf.Place) string {
	return model.JoinScope(p.Account, p.Region, lakeFormation)
}

// readGrants reads the unit's Lake Formation permissions once bfaudit is
// known to see them all, and reports those tied to a backfill as grants
// (BF003, BF102). Its error is the Lake Formation scope's.
func (r *catalogRead) readGrants(ctx context.Context) error {
	client := lakeformation.NewFromConfig(r.place.Config())
	// Saved answers (export_dir) are read without the check: the run
	// that saved them listed only where it saw all, and a listing it did
	// not save is no answer here, an error.
	if !r.c.Exported() {
		if err := r.seesAll(ctx, client); err != nil {
			return fmt.Errorf("glue: %s: Lake Formation: %w", r.place, err)
		}
	}
	grants, read, err := listGrants(ctx, client, r.c.Timeout, r.place, nil)
	if err != nil {
		return fmt.Errorf("glue: %s: Lake Formation permissions: %w", r.place, err)
	}
	scope := lakeFormationScope(r.place)
	r.sink.AddRead(scope, "permissions", read, 0)
	var untied []string // databases with a permission on a table not known to be no backfill's
	for _, g := range grants {
		if g.Principal == allowedPrincipals {
			continue
		}
		t, ok := r.grantTie(g.Permission)
		switch {
		case ok:
			r.sink.AddArtifact(r.grantArtifact(g, t))
		case r.tableUnknown(g.Resource) && !slices.Contains(untied, g.Database):
			untied = append(untied, g.Database)
		}
	}
	if len(untied) > 0 {
		// Such a permission may be a backfill's, tied through its table
		// as the last run read it: unless this scope says it did not
		// answer, that grant would be concluded gone.
		return fmt.Errorf("glue: %s: Lake Formation permissions on tables of %s, whose tables did not read, could not be tied",
			r.place, strings.Join(untied, ", "))
	}
	return nil
}

// tableUnknown says whether the resource is a table (or its columns) of
// this catalog's database whose tables did not read: a table tied by
// its tags, properties, location or description, or by a plan's asset,
// would have tied a permission on it.
func (r *catalogRead) tableUnknown(res Resource) bool {
	return (res.Kind == onTable || res.Kind == onColumns) && res.Catalog == r.place.Account && r.unread[res.Database]
}

// seesAll checks that the unit's principal is a data lake administrator
// or a read-only administrator of this account and region's Lake
// Formation: ListPermissions answers anyone else only what they hold
// themselves, and a grant bfaudit cannot see must never read as gone.
func (r *catalogRead) seesAll(ctx context.Context, client *lakeformation.Client) error {
	who, err := r.caller(ctx)
	if err != nil {
		return err
	}
	out, err := awsconf.Call(ctx, r.c.Timeout, func(ctx context.Context) (*lakeformation.GetDataLakeSettingsOutput, error) {
		return client.GetDataLakeSettings(ctx, &lakeformation.GetDataLakeSettingsInput{CatalogId: aws.String(r.place.Account)})
	})
	if err != nil {
		return fmt.Errorf("data lake settings: %w", err)
	}
	if s := out.DataLakeSettings; s != nil {
		for _, admin := range slices.Concat(s.DataLakeAdmins, s.ReadOnlyAdmins) {
			if samePrincipal(who, aws.ToString(admin.DataLakePrincipalIdentifier)) {
				return nil
			}
		}
	}
	return fmt.Errorf("%s is not a data lake administrator or read-only administrator here, so its ListPermissions would answer only "+
		"the permissions it holds itself: make it a read-only administrator (Lake Formation, Administrative roles and tasks) in this "+
		"account and region, or set lake_formation: false on the source where Lake Formation is not used", who)
}

// caller is who the unit's calls are made as: the role assumed, else the
// caller's own identity.
func (r *catalogRead) caller(ctx context.Context) (string, error) {
	if r.place.Role != "" {
		return r.place.Role, nil
	}
	out, err := awsconf.Call(ctx, r.c.Timeout, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
		return sts.NewFromConfig(r.place.Config()).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	})
	if err != nil {
		return "", fmt.Errorf("who the calls are made as (sts GetCallerIdentity): %w", err)
	}
	if aws.ToString(out.Arn) == "" {
		return "", errors.New("sts GetCallerIdentity answered no ARN")
	}
	return aws.ToString(out.Arn), nil
}

// listGrants lists the permissions granted in the place (on resource
// only, when set), each principal's on each resource merged into one
// grant, and says how many entries it read.
func listGrants(ctx context.Context, client *lakeformation.Client, timeout time.Duration, p awsconf.Place, resource *lftypes.Resource) ([]grant, int, error) {
	pager := lakeformation.NewListPermissionsPaginator(client, &lakeformation.ListPermissionsInput{
		CatalogId: aws.String(p.Account), Resource: resource, MaxResults: aws.Int32(maxPermissions)})
	byURI := map[string]*grant{}
	var order []string
	read := 0
	err := awsconf.Pages(ctx, timeout, pager.HasMorePages,
		func(ctx context.Context) (*lakeformation.ListPermissionsOutput, error) { return pager.NextPage(ctx) },
		func(page *lakeformation.ListPermissionsOutput) error {
			for _, e := range page.PrincipalResourcePermissions {
				read++
				who := ""
				if e.Principal != nil {
					who = aws.ToString(e.Principal.DataLakePrincipalIdentifier)
				}
				res, ok := resourceOf(e.Resource, p.Account)
				if who == "" || !ok {
					continue
				}
				perm := Permission{Account: p.Account, Region: p.Region, Principal: who, Resource: res}
				key := PermissionURI("", perm)
				g := byURI[key]
				if g == nil {
					g = &grant{Permission: perm}
					byURI[key] = g
					order = append(order, key)
				}
				g.add(e)
			}
			return nil
		})
	if err != nil {
		return nil, read, err
	}
	out := make([]grant, 0, len(order))
	for _, k := range order {
		out = append(out, *byURI[k])
	}
	return out, read, nil
}

// add merges one entry of the listing into the grant.
func (g *grant) add(e lftypes.PrincipalResourcePermissions) {
	g.permissions = permissionSet(g.permissions, e.Permissions)
	g.grantable = permissionSet(g.grantable, e.PermissionsWithGrantOption)
	if e.Condition != nil && g.condition == "" {
		g.condition = aws.ToString(e.Condition.Expression)
	}
	if t := utc(e.LastUpdated); t.After(g.updated) {
		g.updated, g.updatedBy = t, aws.ToString(e.LastUpdatedBy)
	}
}

func permissionSet(have []string, more []lftypes.Permission) []string {
	for _, p := range more {
		have = append(have, string(p))
	}
	slices.Sort(have)
	return slices.Compact(have)
}

// grantTie says which backfill a permission belongs to, in the order of
// docs/correlation.md: a plan's asset (its URI), its principal (a plan's
// elevated access, the role's or user's name, bf-1234-replay, or path,
// /backfill/bf-1234/), then its resource (a table or database the
// catalog read tied, their names, a data location's path).
func (r *catalogRead) grantTie(p Permission) (tie, bool) {
	sel := r.c.Env.Selector
	if id, ok := sel.Assets[PermissionURI(r.c.Source(), p)]; ok {
		return tie{id, "asset"}, true
	}
	if id, ok := sel.FromPrincipal(p.Principal); ok {
		return tie{id, "principal"}, true
	}
	if _, _, path, name, ok := iamPrincipal(p.Principal); ok {
		if id, ok := sel.FromName(name); ok {
			return tie{id, "name"}, true
		}
		if id, ok := sel.FromText(path); ok {
			return tie{id, "name"}, true
		}
	}
	return r.resourceTie(p.Resource)
}

// resourceTie is what the resource says: the tie of a table the catalog
// read kept, else its name, else its database's tie or name; a data
// location's path. Only this account's catalog was read: another's
// resources are tied by their names.
func (r *catalogRead) resourceTie(res Resource) (tie, bool) {
	sel := r.c.Env.Selector
	mine := res.Catalog == r.place.Account
	switch res.Kind {
	case onLocation:
		if id, ok := sel.FromText(res.Location); ok {
			return tie{id, "path"}, true
		}
		return tie{}, false
	case onTable, onColumns:
		if t, ok := r.tableTies[tableKey{res.Database, res.Table}]; ok && mine {
			return tie{t.id, "folder"}, true
		}
		if id, ok := sel.FromName(res.Table); ok {
			return tie{id, "folder"}, true
		}
	}
	if t, ok := r.databaseTies[res.Database]; ok && mine {
		return tie{t.id, "folder"}, true
	}
	if id, ok := sel.FromName(res.Database); ok {
		return tie{id, "folder"}, true
	}
	return tie{}, false
}

// grantArtifact is a tied permission as BF003 and BF102 read a grant:
// who holds what, on what, since when; never time-bound.
func (r *catalogRead) grantArtifact(g grant, t tie) model.Artifact {
	perms := strings.Join(g.permissions, ",")
	a := model.Artifact{
		Kind: model.KindGrant, Scope: lakeFormationScope(r.place), URI: PermissionURI(r.c.Source(), g.Permission),
		Name:       cmp.Or(perms, "nothing") + " on " + g.Resource.String() + " to " + g.Principal,
		BackfillID: t.id, Correlation: t.how, State: model.StateActive, ModifiedAt: model.At(g.updated),
	}
	a.SetAttr(model.AttrPrincipal, g.Principal)
	a.SetAttr(model.AttrRole, cmp.Or(perms, "nothing")+" on "+g.Resource.String())
	a.SetAttr(AttrPermissions, perms)
	a.SetAttr(model.AttrTimeBound, "false")
	a.SetAttr(AttrResource, g.Resource.String())
	if g.Kind != onLocation {
		a.SetAttr(AttrDatabase, g.Database)
	}
	if len(g.grantable) > 0 {
		a.SetAttr(AttrGrantable, strings.Join(g.grantable, ","))
	}
	if g.condition != "" {
		a.SetAttr(AttrLFCondition, g.condition)
	}
	if g.updatedBy != "" {
		a.SetAttr(AttrLastUpdatedBy, g.updatedBy)
	}
	return a
}

// iamPrincipal reads an IAM role or user ARN (arn:aws:iam::1:role/path/name,
// or the sts ARN of a role's session, arn:aws:sts::1:assumed-role/name/s)
// into its account, kind, path and name; ok is false for anything else
// (an account id, IAM_ALLOWED_PRINCIPALS, a SAML or Identity Center ARN).
func iamPrincipal(arn string) (account, kind, path, name string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return "", "", "", "", false
	}
	account, resource := parts[4], parts[5]
	kind, rest, _ := strings.Cut(resource, "/")
	switch {
	case parts[2] == "iam" && (kind == "role" || kind == "user"):
		i := strings.LastIndexByte(rest, '/')
		path, name = rest[:i+1], rest[i+1:]
	case parts[2] == "sts" && kind == "assumed-role":
		kind = "role"
		name, _, _ = strings.Cut(rest, "/")
	default:
		return "", "", "", "", false
	}
	return account, kind, path, name, account != "" && name != ""
}

// samePrincipal says whether two ARNs name one role or user: the path is
// no part of who it is, and a role's session is the role.
func samePrincipal(a, b string) bool {
	a1, k1, _, n1, ok1 := iamPrincipal(a)
	a2, k2, _, n2, ok2 := iamPrincipal(b)
	return ok1 && ok2 && a1 == a2 && k1 == k2 && strings.EqualFold(n1, n2)
}
