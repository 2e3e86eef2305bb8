package collectortest

import (
	"context"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// Audit collects the instances and evaluates the full catalogue as of
// now, as `bfaudit audit` does, and returns the report.
func Audit(t *testing.T, instances []collectors.Instance, now time.Time) *model.Report {
	t.Helper()
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, errs := audit.Run(context.Background(), context.Background(), audit.Plan{
		Instances: instances, Selector: correlate.MustSelector(), Engine: eng, Now: now})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return a.Report
}
