package prometheus

import (
	"github.com/bfaudit/bfaudit/model"
	commonmodel "github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// watched is what a rule's expression selects.
type watched struct {
	// ids are the backfills its selectors name, in order, once each.
	ids []string
	// only is true when every series selector is restricted to backfill
	// series: a backfill label key equal to an id (or a regex listing
	// ids), or a metric whose name carries an id (bf_1234_lag_seconds).
	// An expression without selectors (vector(1)) watches nothing.
	only bool
	// err is set when the expression does not parse; then nothing is
	// known of it.
	err error
}

// watch parses expr and reads its series selectors.
func (p *Prometheus) watch(expr string) watched {
	e, err := p.promql.ParseExpr(expr)
	if err != nil {
		return watched{err: err}
	}
	var w watched
	selectors, restricted := 0, 0
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		selectors++
		narrow := false
		for _, m := range vs.LabelMatchers {
			for _, id := range p.selectedIDs(m) {
				w.ids = model.AddID(w.ids, id)
				narrow = true
			}
		}
		if narrow {
			restricted++
		}
		return nil
	})
	w.only = selectors > 0 && restricted == selectors
	return w
}

// selectedIDs lists the backfill ids one matcher restricts series to:
// only positive matchers on a backfill label key or on the metric name
// restrict, and only to a finite list of values.
func (p *Prometheus) selectedIDs(m *labels.Matcher) []string {
	var values []string
	switch m.Type {
	case labels.MatchEqual:
		values = []string{m.Value}
	case labels.MatchRegexp:
		values = m.SetMatches()
	default:
		return nil
	}
	for _, v := range values {
		if v == "" {
			return nil // also matches series without the label
		}
	}
	var ids []string
	if m.Name == commonmodel.MetricNameLabel {
		for _, v := range values {
			id, ok := p.env.Selector.FromName(v)
			if !ok {
				return nil // one of the metrics is not a backfill's
			}
			ids = append(ids, id)
		}
		return ids
	}
	if _, key := p.env.Selector.FromLabels(map[string]string{m.Name: "x"}); key {
		return values
	}
	return nil
}
