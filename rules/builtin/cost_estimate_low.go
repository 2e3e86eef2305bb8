package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

// costLowFactor is how far under the dry run a plan's estimate may be
// before it is a finding; costFarFactor makes it high.
const (
	costLowFactor = 2
	costFarFactor = 10
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF116", Name: "cost-estimate-low", Title: "The plan's cost estimate is missing or far under the warehouse's dry run",
		Rationale: "A plan is approved at its cost. The warehouse's dry run of the replay's queries says how much it will process; " +
			"an estimate that is missing, or a fraction of that, means the replay was approved at the wrong price and is the one stopped halfway.",
		Practice:    rules.PracticeRunSafely,
		Remediation: "Write the dry run's figure in cost_estimate and have the plan approved at that cost, or narrow the range or the replay query until the estimate holds.",
		Severity:    model.SeverityMedium, Ladder: upRung(model.SeverityMedium, "when the plan states no cost, or one under half the dry run",
			fmt.Sprintf("when the dry run is %d times the plan's estimate or more", costFarFactor)),
		Step: model.StepPlan, Governance: true,
		Check:  costEstimateLow,
		Remedy: &remedy.Recipe{Build: remedy.CostEstimateLow, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

// costEstimateLow judges the plans a warehouse estimated (`plan check
// --live` only: without an estimate there is nothing to compare). The
// dry run's bytes, in money at the source's price when the plan states
// money, against the plan's cost_estimate.
func costEstimateLow(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		var bytes int64
		var price float64
		known := false
		for i := range b.Estimates {
			if n, ok := b.Estimates[i].ReplayBytes(); ok {
				bytes, known = bytes+n, true
				price = max(price, b.Estimates[i].PricePerTiB)
			}
		}
		if !known {
			return
		}
		dry := model.FormatBytes(bytes)
		if price > 0 {
			dry += fmt.Sprintf(" ($%.2f at $%.2f per TiB)", model.Dollars(bytes, price), price)
		}
		evidence := []string{"dry run: " + dry}
		claim, ok := model.ParseCostEstimate(b.CostEstimate)
		issue := rules.Issue{Backfill: b, Location: c.PlanAt(b, "cost_estimate"), Severity: model.SeverityMedium,
			Object: "plan:" + b.ID + "#cost_estimate", Evidence: evidence}
		switch {
		case b.CostEstimate == "":
			issue.Message = fmt.Sprintf("plan for %s states no cost_estimate; the warehouse's dry run says %s", b.ID, dry)
		case !ok:
			issue.Message = fmt.Sprintf("plan for %s gives cost_estimate %q, which states no amount; the warehouse's dry run says %s", b.ID, b.CostEstimate, dry)
		default:
			var ratio float64
			switch {
			case claim.Bytes > 0:
				ratio = float64(bytes) / float64(claim.Bytes)
			case claim.Dollars > 0 && price > 0:
				ratio = model.Dollars(bytes, price) / claim.Dollars
			default:
				return // money without a price to compare it at
			}
			if ratio < costLowFactor {
				return
			}
			if ratio >= costFarFactor {
				issue.Severity = model.SeverityHigh
			}
			issue.Message = fmt.Sprintf("plan for %s estimates %q, but the warehouse's dry run says %s: %.0f times as much", b.ID, b.CostEstimate, dry, ratio)
		}
		at := b.Source // the cost_estimate's own line where the plan's lines are known
		if issue.Location != nil {
			at = *issue.Location
		}
		issue.Evidence = append(issue.Evidence, "plan "+at.String()+": cost_estimate: "+orNone(b.CostEstimate))
		c.Report(issue)
	})
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
