package fix_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/airflow"
	"github.com/bfaudit/bfaudit/collectors/alertmanager"
	"github.com/bfaudit/bfaudit/collectors/postgres"
	"github.com/bfaudit/bfaudit/collectors/prometheus"
	"github.com/bfaudit/bfaudit/fix"
)

// Each source of a fixable type gets what acts on it, found by its type;
// a source bfaudit cannot act on (Prometheus rule files, an Airflow source
// reading saved answers) gets none, and a source whose settings cannot
// make a client fails naming the source.
func TestSystemsBySourceType(t *testing.T) {
	am := alertmanager.New()
	am.URL = "http://alertmanager:9093"
	live := airflow.New()
	live.URL = "http://airflow:8080"
	saved := airflow.New()
	saved.ExportDir = t.TempDir()
	systems, closeAll, err := fix.Systems([]collectors.Instance{
		{Name: "silences", Type: "alertmanager", Collector: am},
		{Name: "scheduler", Type: "airflow", Collector: live},
		{Name: "exported", Type: "airflow", Collector: saved},
		{Name: "rules", Type: "prometheus", Collector: prometheus.New()},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = closeAll() }()
	var names []string
	for n := range systems {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"scheduler", "silences"}; !slices.Equal(names, want) {
		t.Errorf("systems for %q, want %q", names, want)
	}

	bad := &postgres.Postgres{DSN: "postgres://%zz"}
	_, _, err = fix.Systems([]collectors.Instance{{Name: "warehouse", Type: "postgres", Collector: bad}})
	if err == nil || !strings.Contains(err.Error(), "source warehouse: dsn") {
		t.Errorf("bad DSN: %v, want an error naming the source", err)
	}
}
