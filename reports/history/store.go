package history

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is an open history store. It is safe for concurrent use, and two
// Stores (two processes) on the same file or database coordinate through it.
type Store struct {
	db        *sql.DB
	driver    string
	trendRuns int
	now       func() time.Time
	holder    string        // who this Store claims digests as
	stale     time.Duration // a fix claim older than this is taken over
	lease     time.Duration // a digest claim not renewed for this long is taken over
	dbLabel   string        // where the store is, for errors; never the DSN
	policy    due.Policy    // how due dates are set (WithDue)
	teams     model.Teams   // how the weekly review groups owners (WithTeams)

	mu      sync.Mutex
	preview *model.Report // the run Preview filled in, replayed by ChangesSince
}

// Option adjusts a Store.
type Option func(*Store)

// WithClock sets the clock used for digest claims (tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithStaleClaim sets how long a fix claim may be held before another run
// may take it over, so a run that crashed mid-fix does not block the
// backfill forever (default 30 minutes).
func WithStaleClaim(d time.Duration) Option { return func(s *Store) { s.stale = d } }

// DefaultDigestLease is how long a digest claim lasts unless renewed: the
// posting run renews it before every call to Slack, so a claim that is not
// renewed for this long belongs to a run that died.
const DefaultDigestLease = 2 * time.Minute

// WithDigestLease sets the digest claim lease (default DefaultDigestLease).
func WithDigestLease(d time.Duration) Option { return func(s *Store) { s.lease = d } }

// sqliteBusyTimeout is how long a writer waits for another process's lock.
const sqliteBusyTimeout = 15 * time.Second

// Open connects to the store and runs any pending schema migrations.
func Open(ctx context.Context, cfg Config, opts ...Option) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	s := &Store{driver: cfg.Driver, trendRuns: cfg.TrendRuns, now: time.Now, stale: 30 * time.Minute, lease: DefaultDigestLease,
		policy: due.DefaultPolicy()}
	for _, o := range opts {
		o(s)
	}
	holder, err := newID()
	if err != nil {
		return nil, err
	}
	s.holder = holder

	switch cfg.Driver {
	case DriverSQLite:
		s.dbLabel = "sqlite " + cfg.Path
		if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o750); err != nil {
			return nil, fmt.Errorf("history: create directory for %s: %w", cfg.Path, err)
		}
		// WAL lets readers run beside the one writer; busy_timeout makes a
		// second audit wait for the lock instead of failing; immediate
		// transactions take the write lock at BEGIN, so two writers never
		// deadlock upgrading a read lock.
		q := "?_pragma=" + fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()) +
			"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		db, err := sql.Open("sqlite", cfg.Path+q)
		if err != nil {
			return nil, fmt.Errorf("history: open %s: %w", s.dbLabel, err)
		}
		s.db = db
	case DriverPostgres:
		dsn, err := cfg.dsn()
		if err != nil {
			return nil, err
		}
		pc, err := pgx.ParseConfig(dsn)
		if err != nil {
			// pgx's parse errors can echo the DSN; say only where to look.
			return nil, fmt.Errorf("history.dsn: not a valid PostgreSQL connection string")
		}
		s.dbLabel = fmt.Sprintf("postgres %s:%d/%s", pc.Host, pc.Port, pc.Database)
		withDeadlines(pc)
		if cfg.Schema != "" {
			sctx, cancel := context.WithTimeout(ctx, pgConnectTimeout+pgStatementTimeout)
			err := createSchema(sctx, pc, cfg.Schema)
			cancel()
			if err != nil {
				return nil, fmt.Errorf("history: %s: %w", s.dbLabel, err)
			}
			pc.RuntimeParams["search_path"] = cfg.Schema
			s.dbLabel += " schema " + cfg.Schema
		}
		s.db = stdlib.OpenDB(*pc)
	}
	if err := s.pingWithin(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("history: connect to %s: %w", s.dbLabel, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("history: migrate %s: %w", s.dbLabel, err)
	}
	return s, nil
}

// Deadlines of the PostgreSQL store while it opens: connecting, unless
// the DSN sets connect_timeout, and each statement Open runs to check the
// server and prepare its schema, so a server that accepts and never
// answers, or freezes, fails Open instead of hanging the audit.
// Variables so tests can shorten them.
var (
	pgConnectTimeout   = 10 * time.Second
	pgStatementTimeout = 30 * time.Second
)

// pingWithin pings under a deadline for PostgreSQL (connecting included);
// SQLite keeps its own busy-retry bound.
func (s *Store) pingWithin(ctx context.Context) error {
	if s.driver != DriverPostgres {
		return s.ping(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, pgConnectTimeout+pgStatementTimeout)
	defer cancel()
	return s.ping(ctx)
}

// ping checks the connection. A fresh SQLite file opened by two audits at
// once can answer SQLITE_BUSY while one of them switches it to WAL, without
// waiting on busy_timeout; that is retried for as long as the timeout.
func (s *Store) ping(ctx context.Context) error {
	deadline := time.Now().Add(sqliteBusyTimeout)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		err := s.db.PingContext(ctx)
		var coded interface{ Code() int }
		if err == nil || s.driver != DriverSQLite || !errors.As(err, &coded) || coded.Code()&0xff != sqliteBusy ||
			time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// sqliteBusy is SQLITE_BUSY, the primary result code (extended codes add
// high bits).
const sqliteBusy = 5

// createSchema makes the configured schema exist before any connection
// uses it as its search_path.
func createSchema(ctx context.Context, pc *pgx.ConnConfig, schema string) error {
	conn, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	// Two audits starting together race on CREATE SCHEMA IF NOT EXISTS
	// (a unique violation in pg_namespace), so take a lock named after it.
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("create schema %s: %w", schema, err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after Commit
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('bfaudit.history.schema.' || $1))`, schema); err != nil {
		return fmt.Errorf("create schema %s: lock: %w", schema, err)
	}
	// schema is checked against a plain identifier pattern in Validate.
	if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS "`+schema+`"`); err != nil {
		return fmt.Errorf("create schema %s: %w", schema, err)
	}
	return tx.Commit(ctx)
}

// Close releases the connection pool.
func (s *Store) Close() error { return s.db.Close() }

// Driver names the backend (sqlite or postgres).
func (s *Store) Driver() string { return s.driver }

// bind rewrites '?' placeholders for the driver: PostgreSQL wants $1, $2...
// The SQL in this package never has a literal '?' in a string.
func (s *Store) bind(query string) string {
	if s.driver != DriverPostgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lockWriters serializes writers across processes within tx. SQLite already
// holds its database lock from BEGIN (immediate mode); PostgreSQL takes a
// transaction-scoped advisory lock named after the schema.
// writeTx begins a transaction under the writers' lock; the caller defers
// its Rollback and commits.
func (s *Store) writeTx(ctx context.Context) (*sql.Tx, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	if err := s.lockWriters(ctx, tx); err != nil {
		tx.Rollback() //nolint:errcheck // the lock's error is the one to report
		return nil, fmt.Errorf("lock: %w", err)
	}
	return tx, nil
}

// inBatches hands fps to fn as query arguments, at most 500 at a time:
// under both databases' parameter limits.
func inBatches(fps []string, fn func(args []any) error) error {
	const batch = 500
	for len(fps) > 0 {
		n := min(batch, len(fps))
		args := make([]any, n)
		for i, fp := range fps[:n] {
			args[i] = fp
		}
		fps = fps[n:]
		if err := fn(args); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) lockWriters(ctx context.Context, tx *sql.Tx) error {
	if s.driver != DriverPostgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('bfaudit.history.' || current_schema()))`)
	return err
}

func newID() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("history: random id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// timeLayout stores times as fixed-width UTC text: it sorts as text, reads
// the same in both databases and needs no driver time conversion.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func nullTime(t time.Time) sql.NullString {
	if t.IsZero() {
		return sql.NullString{}
	}
	return sql.NullString{String: fmtTime(t), Valid: true}
}

func parseTime(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(timeLayout, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", v, err)
	}
	return t, nil
}

func parseNullTime(v sql.NullString) (time.Time, error) {
	if !v.Valid {
		return time.Time{}, nil
	}
	return parseTime(v.String)
}
