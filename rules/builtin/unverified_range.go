package builtin

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF013", Name: "unverified-range", Title: "Validation query does not cover the declared range",
		Rationale: "The first step of closing the loop is to verify the corrected range and compare it against the requirement. " +
			"A completeness query that returns no rows, has missing partitions, or whose MIN/MAX fall outside or short of the declared half-open range [start, end) shows the replay did not produce what was asked.",
		Practice:    rules.PracticeCloseTheLoop,
		Remediation: "Re-run the missing intervals (or correct the range in the plan if the requirement changed), then run the validation query again.",
		Severity:    model.SeverityHigh, Step: model.StepVerified,
		Params: []rules.Param{{Name: "edge", Default: "1d",
			Description: "how far inside the range the first and last rows may start and end before it counts as a gap at the edge (one interval of the job)"}},
		Check:  unverifiedRange,
		Remedy: &remedy.Recipe{Build: remedy.UnverifiedRange, Examples: []remedy.ExampleOf{remedy.ExampleRecord}},
	})
}

// unverifiedRange judges the validation result a warehouse collector
// recorded. A query that failed (Validation.Error) proves nothing either
// way, so it is left to the lifecycle's "no verification recorded".
func unverifiedRange(c *rules.Context) {
	edge := c.Duration("edge")
	for _, id := range c.Index.IDs {
		b := c.Index.Backfills[id]
		v := b.Validation
		if v == nil || v.Error != "" {
			continue
		}
		var gaps []string
		if v.Rows == 0 {
			gaps = append(gaps, "the query returned no rows")
		}
		r := b.Range
		if v.Rows > 0 && !r.Start.IsZero() && !v.Min.IsZero() {
			switch {
			case v.Min.Before(r.Start):
				gaps = append(gaps, fmt.Sprintf("MIN %s is before the range start %s", stamp(v.Min), stamp(r.Start)))
			case !v.Min.Before(r.Start.Add(edge)):
				gaps = append(gaps, fmt.Sprintf("MIN %s leaves a gap after the range start %s", stamp(v.Min), stamp(r.Start)))
			}
		}
		if v.Rows > 0 && !r.End.IsZero() && !v.Max.IsZero() {
			switch {
			case !v.Max.Before(r.End):
				gaps = append(gaps, fmt.Sprintf("MAX %s is at or after the range end %s (the range is half-open)", stamp(v.Max), stamp(r.End)))
			case v.Max.Before(r.End.Add(-edge)):
				gaps = append(gaps, fmt.Sprintf("MAX %s leaves a gap before the range end %s", stamp(v.Max), stamp(r.End)))
			}
		}
		if n := len(v.MissingPartitions); n > 0 {
			gaps = append(gaps, fmt.Sprintf("%d missing partition(s): %s", n, firstFew(v.MissingPartitions, 5)))
		}
		if len(gaps) == 0 {
			continue
		}
		ev := append([]string{fmt.Sprintf("validation ran %s: %d rows, min %s, max %s", stamp(v.RanAt), v.Rows, stamp(v.Min), stamp(v.Max))}, gaps...)
		c.Report(rules.Issue{Backfill: b, Evidence: ev,
			Message: fmt.Sprintf("validation of %s does not cover [%s, %s): %s", b.ID, stamp(r.Start), stamp(r.End), strings.Join(gaps, "; "))})
	}
}

func stamp(t interface {
	IsZero() bool
	Format(string) string
}) string {
	if t.IsZero() {
		return "?"
	}
	return t.Format("2006-01-02T15:04Z07:00")
}

func firstFew(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}
