package metrics

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/bfaudit/bfaudit/model"
)

// The metric names, one place for the docs, the alert examples and tests.
const (
	Findings    = "bfaudit_findings"
	SourceUp    = "bfaudit_source_up"
	Duration    = "bfaudit_audit_duration_seconds"
	LastSuccess = "bfaudit_last_success_timestamp_seconds"
)

// Run is what the report does not say about the run that made it.
type Run struct {
	// Duration is how long the run took, start to metrics.
	Duration time.Duration
	// Complete says the run finished its work: every source answered
	// fully, every sink delivered, no deadline or signal stopped it. Only
	// a complete run sets the last-success time (to the report's Now).
	Complete bool
	// PreviousSuccess is the last-success time an incomplete run carries
	// over from an earlier one (the textfile reads it from the file it
	// replaces); zero leaves the metric out.
	PreviousSuccess time.Time
	// Team names an owner's team for the team label; nil (teams are not
	// configured) leaves the label empty.
	Team func(owner string) string
}

// Families builds the metrics of r, sorted by name and labels so the
// same report always gives the same text.
func Families(r *model.Report, run Run) []*dto.MetricFamily {
	fams := []*dto.MetricFamily{
		gauge(Findings, "Open findings not waived, by severity, rule, owner, owner's team and whether past their due date.", findings(r, run.Team)),
		gauge(SourceUp, "1 when the source answered for every unit this run, 0 when it failed or answered only in part (degraded).", sources(r)),
		gauge(Duration, "How long the audit run took, in seconds.", []*dto.Metric{value(run.Duration.Seconds())}),
	}
	last := run.PreviousSuccess
	if run.Complete {
		last = r.Now
	}
	if !last.IsZero() {
		fams = append(fams, gauge(LastSuccess, "When the last complete audit ran (every source answered, every sink delivered), as the audit's time, in Unix seconds.",
			[]*dto.Metric{value(float64(last.UnixMilli()) / 1000)}))
	}
	// The encoder refuses a family with no sample (no finding open, no
	// source in a saved estate): such a family is left out.
	fams = slices.DeleteFunc(fams, func(f *dto.MetricFamily) bool { return len(f.Metric) == 0 })
	slices.SortFunc(fams, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
	return fams
}

type findingKey struct{ severity, rule, owner, team, overdue string }

func findings(r *model.Report, team func(string) string) []*dto.Metric {
	counts := map[findingKey]int{}
	for _, f := range r.Findings {
		if f.Waived() {
			continue
		}
		k := findingKey{severity: f.Severity.String(), rule: f.RuleID, owner: f.Owner, overdue: strconv.FormatBool(f.Overdue)}
		if team != nil {
			k.team = team(f.Owner)
		}
		counts[k]++
	}
	keys := slices.SortedFunc(maps.Keys(counts), func(a, b findingKey) int {
		return cmp.Or(strings.Compare(a.severity, b.severity), strings.Compare(a.rule, b.rule),
			strings.Compare(a.owner, b.owner), strings.Compare(a.team, b.team), strings.Compare(a.overdue, b.overdue))
	})
	out := make([]*dto.Metric, 0, len(keys))
	for _, k := range keys {
		m := value(float64(counts[k]))
		m.Label = labels("severity", k.severity, "rule", k.rule, "owner", k.owner, "team", k.team, "overdue", k.overdue)
		out = append(out, m)
	}
	return out
}

func sources(r *model.Report) []*dto.Metric {
	cov := slices.Clone(r.Coverage)
	slices.SortFunc(cov, func(a, b model.Coverage) int { return strings.Compare(a.Source, b.Source) })
	out := make([]*dto.Metric, 0, len(cov))
	for _, c := range cov {
		up := 0.0
		if c.Full() {
			up = 1
		}
		m := value(up)
		m.Label = labels("source", c.Source, "system", c.System)
		out = append(out, m)
	}
	return out
}

func gauge(name, help string, ms []*dto.Metric) *dto.MetricFamily {
	return &dto.MetricFamily{Name: &name, Help: &help, Type: dto.MetricType_GAUGE.Enum(), Metric: ms}
}

func value(v float64) *dto.Metric { return &dto.Metric{Gauge: &dto.Gauge{Value: &v}} }
