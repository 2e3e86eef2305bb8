package history

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Drivers.
const (
	DriverSQLite   = "sqlite"
	DriverPostgres = "postgres"
)

// DefaultPath is where the SQLite store lives unless configured.
const DefaultPath = ".bfaudit/history.db"

// DefaultTrendRuns is how many past runs the report's trend shows.
const DefaultTrendRuns = 30

// Config is the `history` section of the config file.
type Config struct {
	// Driver is sqlite (default) or postgres.
	Driver string `mapstructure:"driver"`
	// Path is the SQLite file; its directory is created when missing.
	Path string `mapstructure:"path"`
	// DSN is a PostgreSQL connection string; DSNEnv names an environment
	// variable holding one, so the password stays out of the config file.
	DSN    string `mapstructure:"dsn"`
	DSNEnv string `mapstructure:"dsn_env"`
	// Schema, for PostgreSQL, is the schema the tables live in; it is
	// created when missing. Empty uses the connection's search_path.
	Schema string `mapstructure:"schema"`
	// TrendRuns is how many runs the trend covers (default 30).
	TrendRuns int `mapstructure:"trend_runs"`
}

// WithDefaults fills unset fields.
func (c Config) WithDefaults() Config {
	if c.Driver == "" {
		c.Driver = DriverSQLite
	}
	if c.Driver == DriverSQLite && c.Path == "" {
		c.Path = DefaultPath
	}
	if c.TrendRuns <= 0 {
		c.TrendRuns = DefaultTrendRuns
	}
	return c
}

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Validate checks the section after defaults are applied; errors name the key.
func (c Config) Validate() error {
	c = c.WithDefaults()
	switch c.Driver {
	case DriverSQLite:
		if c.DSN != "" || c.DSNEnv != "" {
			return fmt.Errorf("history.dsn: only used with driver postgres (driver is sqlite; set history.path instead)")
		}
	case DriverPostgres:
		if c.DSN == "" && c.DSNEnv == "" {
			return fmt.Errorf("history.dsn: driver postgres needs history.dsn or history.dsn_env")
		}
		if c.DSN != "" && c.DSNEnv != "" {
			return fmt.Errorf("history.dsn_env: set history.dsn or history.dsn_env, not both")
		}
		if c.Schema != "" && !schemaName.MatchString(c.Schema) {
			return fmt.Errorf("history.schema: %q is not a plain lowercase identifier", c.Schema)
		}
	default:
		return fmt.Errorf("history.driver: unknown driver %q (want sqlite or postgres)", c.Driver)
	}
	return nil
}

// dsn resolves the PostgreSQL connection string, from the environment when
// dsn_env is set. The value is never put in an error.
func (c Config) dsn() (string, error) {
	if c.DSNEnv == "" {
		return c.DSN, nil
	}
	v := strings.TrimSpace(os.Getenv(c.DSNEnv))
	if v == "" {
		return "", fmt.Errorf("history.dsn_env: environment variable %s is empty or unset", c.DSNEnv)
	}
	return v, nil
}
