package audit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// stalled never answers until its context ends.
type stalled struct{}

func (stalled) Init(collectors.Env) error               { return nil }
func (stalled) Units(context.Context) ([]string, error) { return []string{""}, nil }
func (stalled) CollectUnit(ctx context.Context, _ string, _ collectors.Sink) error {
	<-ctx.Done()
	return ctx.Err()
}

// Run owns the order: the sinks see a judged, dated, redacted report and
// what goes wrong there is in the report before the metrics are written;
// a run stopped by its deadline still returns its report, saying why.
func TestRunOrderAndProblems(t *testing.T) {
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var order []string
	var completeAtMeasure bool
	a, errs := Run(ctx, context.Background(), Plan{
		Instances: []collectors.Instance{{Name: "wh", Type: "warehouse", Collector: stalled{}}},
		Selector:  correlate.MustSelector(), Engine: eng, Now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		Deadline: 50 * time.Millisecond,
		Problems: []error{errors.New("history: database is locked")},
		Deliver: func(_ context.Context, a *Audit, problem func(error)) {
			order = append(order, "deliver")
			problem(errors.New("github: 502"))
		},
		Measure: func(_ context.Context, a *Audit, problem func(error)) {
			order = append(order, "measure")
			completeAtMeasure = a.Report.Summary.Complete
		},
	})
	if strings.Join(order, ",") != "deliver,measure" || completeAtMeasure {
		t.Errorf("hooks ran %v, complete at measure %v: want deliver then measure, the run incomplete", order, completeAtMeasure)
	}
	want := []string{"the run's deadline (50ms) passed", "history: database is locked", "github: 502"}
	if len(a.Report.Problems) != len(want) || len(errs) != len(want) {
		t.Fatalf("problems %q, errs %v; want %q", a.Report.Problems, errs, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(a.Report.Problems[i], w) {
			t.Errorf("problem %d = %q, want %q first", i, a.Report.Problems[i], w)
		}
	}
	if len(a.Report.Coverage) != 1 || a.Report.Coverage[0].Status != model.CoverageFailed {
		t.Errorf("the stalled source must be failed: %+v", a.Report.Coverage)
	}
}
