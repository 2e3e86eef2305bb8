// Package postgres collects backfill machinery from PostgreSQL (and
// Redshift, which speaks its protocol): tables and schemas tied to a
// backfill by comment or name, the grants on them and held by backfill
// roles, and the roles themselves. It also runs validation queries (BF013)
// in a read-only transaction with a statement timeout.
package postgres

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/jackc/pgx/v5"
)

//go:embed sample.yaml
var sampleConfig string

// DefaultStatementTimeout bounds every statement the collector runs,
// validation queries included.
const DefaultStatementTimeout = 30 * time.Second

// DefaultTimeout is the client-side deadline of connecting and of each
// query unless the config's timeout says otherwise.
const DefaultTimeout = remote.DefaultCallTimeout

func init() {
	collectors.Register("postgres", func() collectors.Collector {
		return &Postgres{StatementTimeout: DefaultStatementTimeout, Timeout: DefaultTimeout}
	}, sampleConfig)
}

// Postgres is one configured PostgreSQL source.
type Postgres struct {
	// DSN is a connection string (URL or key=value); prefer DSNEnv so the
	// password stays out of the config file.
	DSN string `mapstructure:"dsn"`
	// DSNEnv names the environment variable that holds the DSN.
	DSNEnv string `mapstructure:"dsn_env"`
	// Databases to read; default the DSN's database. Each one is a scope:
	// a database that cannot be read degrades the source, the others are
	// still collected.
	Databases []string `mapstructure:"databases"`
	// Schemas to read tables from; default every non-system schema.
	Schemas []string `mapstructure:"schemas"`
	// StatementTimeout bounds each catalog and validation query on the
	// server, which cancels the statement and says so.
	StatementTimeout time.Duration `mapstructure:"statement_timeout"`
	// Timeout is the client-side deadline, for a server that does not
	// answer at all (a port that accepts and stalls, a frozen server, an
	// HTTP port): connecting (unless the DSN sets connect_timeout) and
	// each query, which waits at most the larger of Timeout and
	// StatementTimeout + 5s.
	Timeout time.Duration `mapstructure:"timeout"`

	// env is the source's name (the host part of URIs), selector and
	// clock, from Init.
	env collectors.Env
	// conf is the parsed DSN; each database gets a copy.
	conf *pgx.ConnConfig
}

// Init validates the config and parses the DSN. It does not connect, so a
// server that is down fails the run's coverage, not the config check.
// env's clock makes a role's VALID UNTIL expired or not at the audit's
// time (--now) and stamps validation queries; its source name is the host
// part of URIs (the DSN's host when empty).
func (p *Postgres) Init(env collectors.Env) error {
	p.env = env
	dsn := p.DSN
	switch {
	case p.DSN != "" && p.DSNEnv != "":
		return errors.New("dsn, dsn_env: set one, not both")
	case p.DSNEnv != "":
		dsn = os.Getenv(p.DSNEnv)
		if dsn == "" {
			return fmt.Errorf("dsn_env: environment variable %s is empty or unset", p.DSNEnv)
		}
	case dsn == "":
		return errors.New("dsn: missing; set dsn or dsn_env")
	}
	if err := remote.CheckTimeout("statement_timeout", p.StatementTimeout); err != nil {
		return err
	}
	if err := remote.CheckTimeout("timeout", p.Timeout); err != nil {
		return err
	}
	redact.Add(dsn)
	conf, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx redacts the password in its message, but the DSN may be
		// malformed in ways that defeat that; say only what went wrong.
		return fmt.Errorf("dsn: cannot be parsed as a PostgreSQL URL or key=value string")
	}
	if conf.ConnectTimeout <= 0 {
		// No connect_timeout in the DSN: a port that accepts and never
		// answers must not hold the audit.
		conf.ConnectTimeout = p.Timeout
	}
	if conf.RuntimeParams == nil {
		conf.RuntimeParams = map[string]string{}
	}
	conf.RuntimeParams["application_name"] = "bfaudit"
	// The collector only reads; make the server enforce it.
	conf.RuntimeParams["default_transaction_read_only"] = "on"
	conf.RuntimeParams["statement_timeout"] = fmt.Sprint(p.StatementTimeout.Milliseconds())
	p.conf = conf
	if conf.Database == "" {
		// What the server does for a DSN without a database.
		conf.Database = conf.User
	}
	if len(p.Databases) == 0 {
		p.Databases = []string{conf.Database}
	}
	if slices.Contains(p.Databases, scopeRoles) {
		// Its unit would be the cluster's roles: it would never be read.
		return fmt.Errorf("databases: a database named %q cannot be read, its unit is the cluster's roles", scopeRoles)
	}
	return nil
}

func (p *Postgres) sourceName() string {
	if p.env.Source != "" {
		return p.env.Source
	}
	if p.conf != nil {
		return p.conf.Host
	}
	return "postgres"
}

// connect opens a session on one database of the source.
func (p *Postgres) connect(ctx context.Context, database string) (*pgx.Conn, error) {
	if p.conf == nil {
		return nil, fmt.Errorf("postgres source %s: not initialised (Init was not called)", p.sourceName())
	}
	conf := p.conf.Copy()
	conf.Database = database
	ctx, cancel := context.WithTimeout(ctx, max(conf.ConnectTimeout, p.Timeout))
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, conf)
	if err != nil {
		return nil, fmt.Errorf("postgres source %s: connect to database %q as %q: %w", p.sourceName(), database, conf.User, err)
	}
	return conn, nil
}

// Units are the cluster-wide roles and memberships (scopeRoles) and each
// configured database (model.JoinScope(db): its schemas and tables, with
// the grants read in it at JoinScope(db, "grants")). Roles come first, as
// they were read before any database's tables.
func (p *Postgres) Units(context.Context) ([]string, error) {
	if p.conf == nil {
		return nil, fmt.Errorf("postgres source %s: not initialised (Init was not called)", p.sourceName())
	}
	units := []string{scopeRoles}
	for _, db := range p.Databases {
		units = append(units, model.JoinScope(db))
	}
	return units, nil
}

// CollectUnit reads the roles, or one database. Every database reads the
// roles too, to find the grants backfill roles hold there: where that
// fails, that database's grants are not answered.
func (p *Postgres) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	if unit == scopeRoles {
		return p.collectRoles(ctx, sink)
	}
	db := p.database(unit)
	conn, err := p.connect(ctx, db)
	if err != nil {
		return err
	}
	defer p.close(ctx, conn)
	roles, err := p.readRoles(ctx, conn)
	if err != nil {
		// Grants on backfill tables can still be read; grants held by
		// backfill roles cannot.
		sink.AddError(grantsScope(db), fmt.Errorf("postgres source %s: grants held by backfill roles in database %q not read: %w", p.sourceName(), db, err))
	}
	return p.collectDatabase(ctx, conn, db, roles, sink)
}

// database is the configured database whose unit is unit.
func (p *Postgres) database(unit string) string {
	for _, db := range p.Databases {
		if model.JoinScope(db) == unit {
			return db
		}
	}
	return unit
}

// collectRoles emits the backfill roles and their memberships, read from
// the first database that can be reached and lets them be read (SELECT on
// pg_roles can be revoked in one database and not in another).
func (p *Postgres) collectRoles(ctx context.Context, sink collectors.Sink) error {
	var err error
	for _, db := range p.Databases {
		var conn *pgx.Conn
		if conn, err = p.connect(ctx, db); err != nil {
			continue
		}
		var roles *roleSet
		if roles, err = p.readRoles(ctx, conn); err == nil {
			sink.AddRead(scopeRoles, "roles", len(roles.byOID), 0)
			p.emitRoles(roles, sink)
			err = p.collectMemberships(ctx, conn, roles, sink)
		}
		p.close(ctx, conn)
		if roles != nil {
			return err
		}
	}
	return err
}

// grantsScope is the unit of the grants read in one database.
func grantsScope(db string) string { return model.JoinScope(db, "grants") }

// collectDatabase emits one database's backfill schemas and tables and the
// grants tied to them or held by backfill roles. A failed table listing
// fails the database (its grants with it, as they are found through the
// tables); a failed grant listing fails only its grants.
func (p *Postgres) collectDatabase(ctx context.Context, conn *pgx.Conn, db string, roles *roleSet, sink collectors.Sink) error {
	objs, err := p.collectTables(ctx, conn, db, sink)
	if err != nil {
		return err
	}
	if err := p.collectGrants(ctx, conn, db, objs, roles, sink); err != nil {
		sink.AddError(grantsScope(db), err)
	}
	return nil
}
