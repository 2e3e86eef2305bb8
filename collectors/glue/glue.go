// Package glue collects the AWS Glue Data Catalog tables a backfill left
// behind: the Athena scratch table a replay wrote its corrected rows to
// (refunds_bf_1234_tmp), the tables of a scratch database, the external
// table over s3://…/tmp/bf-1234/. They are temporary tables, judged by
// BF005 as BigQuery's and PostgreSQL's are (docs/practice.md, "Inventory
// the machinery"). One unit is an account in a region; a database whose
// tables do not read is an error at its own scope.
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

func init() { collectors.Register("glue", func() collectors.Collector { return New() }) }

// New returns a collector with its defaults.
func New() *Collector { return &Collector{Regional: awssource.NewRegional("glue")} }

// Collector reads the Data Catalog of every configured account and region.
type Collector struct {
	awssource.Regional `mapstructure:",squash"`
}

// SampleConfig returns the documented sources entry.
func (c *Collector) SampleConfig() string { return sampleConfig }

// CollectUnit reads one account in one region: its databases (a failed
// listing fails the unit), then each database's tables (a failed listing
// is an error at the database's scope; the other databases stand).
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	p, err := c.Place(unit)
	if err != nil {
		return err
	}
	r := &catalogRead{c: c, place: p, unit: unit, sink: sink, client: awsglue.NewFromConfig(p.Config()), tagBudget: maxTagReads}
	return r.read(ctx)
}
