package glue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsglue "github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// newActor: the source deletes tables with the configuration it reads
// with, in the table's account (through the role it assumes there) and
// region.
func newActor(c *Collector) (remedy.Actor, error) { return c, nil }

// clientFor is a Glue client of the table's account and region, which
// must be ones the source reads.
func (c *Collector) clientFor(ctx context.Context, t Table) (*awsglue.Client, awsconf.Place, error) {
	if !slices.Contains(c.Regions, t.Region) {
		return nil, awsconf.Place{}, fmt.Errorf("glue: region %s is not one this source reads", t.Region)
	}
	p, err := c.PlaceOf(ctx, t.Account, t.Region)
	if err != nil {
		return nil, awsconf.Place{}, fmt.Errorf("glue: %w", err)
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
// since (written to, its schema altered) is left alone.
func (c *Collector) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return tableState(a.ModifiedAt, a.Attr(AttrVersionID))
}

func tableState(updated time.Time, version string) map[string]string {
	s := ""
	if !updated.IsZero() {
		s = updated.UTC().Format(time.RFC3339Nano)
	}
	return map[string]string{"updated": s, "version": version}
}

// Act deletes the table (DeleteTable); one already gone is no error.
func (c *Collector) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
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
