package postgres

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"gopkg.in/yaml.v3"
)

func TestSampleConfigDecodes(t *testing.T) {
	t.Setenv("BFAUDIT_PG_DSN", "postgres://auditor@db.internal:5432/warehouse")
	var entries []map[string]any
	if err := yaml.Unmarshal([]byte(sampleConfig), &entries); err != nil {
		t.Fatalf("sample.yaml: %v", err)
	}
	if len(entries) == 0 {
		t.Fatal("sample.yaml has no source entry")
	}
	for _, e := range entries {
		inst, err := collectors.Decode(e, collectors.Env{})
		if err != nil {
			t.Fatalf("decode sample: %v", err)
		}
		p := inst.Collector.(*Postgres)
		if inst.Type != "postgres" || p.StatementTimeout.String() != "30s" || p.Databases[0] != "warehouse" {
			t.Errorf("decoded %+v", p)
		}
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	t.Setenv("BFAUDIT_EMPTY_DSN", "")
	tests := []struct {
		name  string
		entry map[string]any
		want  string
	}{
		{"no dsn", map[string]any{}, "dsn: missing; set dsn or dsn_env"},
		{"both", map[string]any{"dsn": "postgres://x/db", "dsn_env": "X"}, "dsn, dsn_env: set one"},
		{"empty env", map[string]any{"dsn_env": "BFAUDIT_EMPTY_DSN"}, "dsn_env: environment variable BFAUDIT_EMPTY_DSN is empty"},
		{"bad timeout", map[string]any{"dsn": "postgres://x/db", "statement_timeout": "soon"}, "statement_timeout"},
		{"unknown key", map[string]any{"dsn": "postgres://x/db", "tables": "all"}, "tables"},
		{"unparseable dsn, password hidden", map[string]any{"dsn": "postgres://u:s3cret@host:notaport/db"}, "dsn: cannot be parsed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.entry["type"] = "postgres"
			_, err := collectors.Decode(tc.entry, collectors.Env{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err=%v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
}

func TestDatabaseDefaultsLikeTheServer(t *testing.T) {
	tests := []struct{ dsn, want string }{
		{"postgres://auditor@db:5432/warehouse", "warehouse"},
		{"postgres://auditor@db:5432/", "auditor"}, // the server connects to the user's database
		{"host=db user=auditor dbname=sales", "sales"},
	}
	for _, tc := range tests {
		t.Run(tc.dsn, func(t *testing.T) {
			inst, err := collectors.Decode(map[string]any{"type": "postgres", "dsn": tc.dsn}, collectors.Env{})
			if err != nil {
				t.Fatal(err)
			}
			if got := inst.Collector.(*Postgres).Databases; len(got) != 1 || got[0] != tc.want {
				t.Errorf("databases=%v, want [%s]", got, tc.want)
			}
		})
	}
}
