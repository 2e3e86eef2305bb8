// Package scheduler collects the Amazon EventBridge Scheduler schedules a
// backfill left behind: the one-off at() schedule that fired the replay,
// the rate() or cron() schedule that ran it interval by interval, the
// schedule group made for it. They are scheduler jobs, judged by BF001
// and BF002 as Airflow's DAGs and Kubernetes' CronJobs are
// (docs/practice.md, "Inventory the machinery"). The type is named
// "scheduler" after the service's own short name (its API, CLI and ARNs
// say scheduler); no other collector has the name. One unit is an account
// in a region; a schedule group whose tags or schedules do not read is an
// error at its own scope.
package scheduler

import (
	"context"
	_ "embed"

	awsscheduler "github.com/aws/aws-sdk-go-v2/service/scheduler"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/awssource"
)

//go:embed sample.yaml
var sampleConfig string

func init() { collectors.Register("scheduler", New, sampleConfig) }

// New returns a collector with its defaults.
func New() *Collector { return &Collector{Regional: awssource.NewRegional("scheduler")} }

// Collector reads the schedules of every configured account and region.
type Collector struct {
	awssource.Regional `mapstructure:",squash"`
}

// CollectUnit reads one account in one region: its schedule groups and
// schedules (a failed listing fails the unit), each group's tags and each
// kept schedule (a failure is an error at its group's scope).
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	p, err := c.Place(unit)
	if err != nil {
		return err
	}
	r := &regionRead{c: c, place: p, unit: unit, sink: sink, client: awsscheduler.NewFromConfig(p.Config())}
	return r.read(ctx)
}
