package correlate

import "strings"

// TagLabels turns free-text tags (Airflow DAG tags, Grafana tags) into
// labels the selector reads: "backfill_id=BF-1234" and "backfill:BF-1234"
// become key and value; any other tag is a key with an empty value. At
// most max tags are read (0: all); nil when none is left.
func TagLabels(tags []string, max int) map[string]string {
	out := map[string]string{}
	for i, t := range tags {
		if max > 0 && i >= max {
			break
		}
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if k, v, ok := strings.Cut(t, "="); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		} else if k, v, ok := strings.Cut(t, ":"); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		} else {
			out[t] = ""
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
