package airflow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
)

// A page of runs is read without decoding the confs: a run the listing
// drops costs no map, whatever its conf holds. A kept run's conf still
// ties it, and a conf that is not an object still fails the page.
func TestRunConfDecodedOnlyWhenKept(t *testing.T) {
	var conf strings.Builder
	for i := range 50 {
		fmt.Fprintf(&conf, `"param_%d": {"value": "%d", "list": [1, 2, 3]}, `, i, i)
	}
	var page strings.Builder
	page.WriteString(`{"dag_runs": [`)
	for i := range 100 {
		if i > 0 {
			page.WriteString(",")
		}
		fmt.Fprintf(&page, `{"dag_id": "d", "dag_run_id": "r%d", "run_type": "scheduled", "state": "success", "conf": {%s"backfill_id": "bf_%d"}}`, i, conf.String(), i)
	}
	page.WriteString(`], "total_entries": 100}`)
	body := []byte(page.String())
	allocs := testing.AllocsPerRun(5, func() {
		var c dagRunCollection
		if err := decodeAnswer(body, &c); err != nil {
			t.Fatal(err)
		}
	})
	// Decoding each conf into a map took about 750 allocations a run of
	// this page; now 4.
	if perRun := allocs / 100; perRun > 20 {
		t.Errorf("reading a page allocates %.0f times a run", perRun)
	}

	var c dagRunCollection
	if err := decodeAnswer(body, &c); err != nil {
		t.Fatal(err)
	}
	a := New()
	a.env = collectors.Env{Selector: correlate.MustSelector()}
	if got := a.confLabels(c.DagRuns[7].Conf.decode()); got["backfill_id"] != "bf_7" || len(got) != 1 {
		t.Errorf("a kept run's conf labels are %v, want backfill_id bf_7 alone", got)
	}
	err := decodeAnswer([]byte(`{"dag_runs": [{"dag_id": "d", "dag_run_id": "r", "conf": "x"}], "total_entries": 1}`), &dagRunCollection{})
	if err == nil || !strings.Contains(err.Error(), "field dag_runs.conf is a JSON string") {
		t.Errorf("a conf that is a string: %v, want an error naming dag_runs.conf", err)
	}
}
