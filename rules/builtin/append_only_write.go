package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF107", Name: "append-only-write", Title: "Backfill appends instead of overwriting partitions",
		Rationale: "Each run must fully replace the output partition for its input range, so rerunning any partition converges to the same state. " +
			"Append-only outputs are not backfillable without a separate deletion step, which is where duplicates come from.",
		Practice:    rules.PracticeRunSafely,
		Remediation: "Write by partition with overwrite semantics (write_mode: partition_overwrite); if the target cannot do that, delete the interval's rows in the same transaction before writing.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Check:  appendOnlyWrite,
		Remedy: &remedy.Recipe{Build: remedy.AppendOnlyWrite, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

func appendOnlyWrite(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		if b.WriteMode != model.WriteAppend || !beforeReplay(b) {
			return
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "write_mode"),
			Message:  fmt.Sprintf("plan for %s appends: rerunning an interval will duplicate its rows", b.ID),
			Evidence: []string{"write_mode: append"}})
	})
}
