package history

import (
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string // substring of the error; "" for valid
	}{
		{"defaults to sqlite", Config{}, ""},
		{"postgres with dsn_env", Config{Driver: "postgres", DSNEnv: "PG_DSN"}, ""},
		{"unknown driver", Config{Driver: "mysql"}, "history.driver"},
		{"postgres without dsn", Config{Driver: "postgres"}, "history.dsn"},
		{"both dsn and dsn_env", Config{Driver: "postgres", DSN: "postgres://x", DSNEnv: "X"}, "history.dsn_env"},
		{"dsn on sqlite", Config{DSN: "postgres://x"}, "history.dsn"},
		{"bad schema", Config{Driver: "postgres", DSN: "postgres://x", Schema: `x"; drop`}, "history.schema"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate = %v, want an error naming %s", err, tc.want)
			}
		})
	}
	if got := (Config{}).WithDefaults(); got.Path != DefaultPath || got.TrendRuns != DefaultTrendRuns {
		t.Errorf("defaults = %+v", got)
	}
}

func TestDSNFromEnvIsNotEchoed(t *testing.T) {
	t.Setenv("BFAUDIT_HISTORY_TEST_DSN", "")
	_, err := Config{Driver: "postgres", DSNEnv: "BFAUDIT_HISTORY_TEST_DSN"}.dsn()
	if err == nil || !strings.Contains(err.Error(), "BFAUDIT_HISTORY_TEST_DSN") {
		t.Fatalf("dsn() = %v, want an error naming the empty variable", err)
	}
}
