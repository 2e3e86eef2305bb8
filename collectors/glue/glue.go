// Package glue collects the AWS Glue Data Catalog tables a backfill left
// behind: the Athena scratch table a replay wrote its corrected rows to
// (refunds_bf_1234_tmp), the tables of a scratch database, the external
// table over s3://…/tmp/bf-1234/. They are temporary tables, judged by
// BF005 as BigQuery's and PostgreSQL's are (docs/practice.md, "Inventory
// the machinery"). With them, the Lake Formation permissions of the
// backfill's principals and on its tables: elevated grants, judged by
// BF003 and BF102 as IAM's are. One unit is an account in a region; a
// database whose tables do not read, and Lake Formation's permissions,
// are errors at their own scopes.
package glue

import (
	"context"
	_ "embed"

	awsglue "github.com/aws/aws-sdk-go-v2/service/glue"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/awssource"
)

//go:embed sample.yaml
var sampleConfig string

func init() { collectors.Register("glue", New, sampleConfig) }

// New returns a collector with its defaults: Lake Formation read.
func New() *Collector {
	return &Collector{Regional: awssource.NewRegional("glue"), LakeFormation: true}
}

// Collector reads the Data Catalog of every configured account and region.
type Collector struct {
	awssource.Regional `mapstructure:",squash"`
	// LakeFormation reads Lake Formation's permissions in each account and
	// region as grants. On by default: a lingering grant is high severity,
	// and a source that silently skipped them would pass an account whose
	// backfill roles still hold their access. Off where Lake Formation is
	// not used: reading it needs the role made a Lake Formation
	// administrator (or read-only administrator), without which the
	// permissions are an error.
	LakeFormation bool `mapstructure:"lake_formation"`
}

// CollectUnit reads one account in one region: its databases (a failed
// listing fails the unit), then each database's tables (a failed listing
// is an error at the database's scope; the other databases stand), then
// Lake Formation's permissions (an error at <account>/<region>/lakeformation:
// the tables stand, and no grant is concluded gone).
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	p, err := c.Place(unit)
	if err != nil {
		return err
	}
	r := &catalogRead{c: c, place: p, unit: unit, sink: sink, client: awsglue.NewFromConfig(p.Config()), tagBudget: maxTagReads,
		tableTies: map[tableKey]tie{}, databaseTies: map[string]tie{}, unread: map[string]bool{}}
	if err := r.read(ctx); err != nil || !c.LakeFormation {
		return err
	}
	if err := r.readGrants(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sink.AddError(lakeFormationScope(p), err)
	}
	return ctx.Err()
}
