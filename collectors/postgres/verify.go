package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Verify runs a backfill's validation query (rule BF013) in a read-only
// transaction under statement_timeout, against the source's first
// database, and reads the result by the convention in collectors.Verifier.
//
// A failure of the query itself (a syntax error, a write refused by the
// read-only transaction, statement_timeout firing, a result it cannot
// read) is evidence about the query: it comes back in Validation.Error
// with a nil error. A failure of the source (it cannot be reached, the
// connection is lost, or the server goes silent past the client-side
// deadline) is returned as a *collectors.VerifyError at the unit
// <database>/validation/<backfill id>, so the audit degrades the source
// instead of reporting it "ok".
func (p *Postgres) Verify(ctx context.Context, b model.Backfill) (*model.Validation, error) {
	if strings.TrimSpace(b.ValidationQuery) == "" {
		return nil, fmt.Errorf("postgres source %s: backfill %s has no validation_query to run", p.sourceName(), b.ID)
	}
	if p.conf == nil {
		return nil, fmt.Errorf("postgres source %s: not initialised (Init was not called)", p.sourceName())
	}
	db := p.Databases[0]
	unit := model.JoinScope(db, "validation", b.ID)
	conn, err := p.connect(ctx, db)
	if err != nil {
		return nil, &collectors.VerifyError{Scope: unit,
			Err: fmt.Errorf("backfill %s: validation query not run: %w", b.ID, err)}
	}
	defer p.close(ctx, conn)

	v := &model.Validation{Query: b.ValidationQuery, RanAt: p.env.Now().UTC(), Source: p.sourceName()}
	res, err := p.runValidation(ctx, conn, b.ValidationQuery)
	if err != nil {
		if lostSource(conn, err) {
			return nil, &collectors.VerifyError{Scope: unit,
				Err: fmt.Errorf("backfill %s: validation query on source %s database %q: the server stopped answering, so the range is not verified: %w",
					b.ID, p.sourceName(), db, err)}
		}
		v.Error = p.describeQueryError(b.ID, err)
		return v, nil
	}
	if err := res.fill(v, b.Range); err != nil {
		v.Error = fmt.Sprintf("backfill %s: validation query result: %v", b.ID, err)
	}
	return v, nil
}

// lostSource tells a failure of the source (connection lost, server gone
// silent past the deadline, shutting down) from a failure of the query.
func lostSource(conn *pgx.Conn, err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08 is a connection exception; 57P0x the server shutting
		// down or not accepting connections.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")
	}
	var re *resultError
	if errors.As(err, &re) {
		return false
	}
	return conn.IsClosed() || pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// resultError is a result the convention cannot read: evidence about the
// query, not about the source.
type resultError struct{ err error }

func (e *resultError) Error() string { return e.err.Error() }
func (e *resultError) Unwrap() error { return e.err }

// runValidation runs query in a read-only transaction that is always
// rolled back, and reads every row by column role. The whole transaction
// has the client-side deadline of one query.
func (p *Postgres) runValidation(ctx context.Context, conn *pgx.Conn, query string) (*validationResult, error) {
	ctx, cancel := context.WithTimeout(ctx, p.queryTimeout())
	defer cancel()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		tx.Rollback(rctx)
	}()
	// SET LOCAL takes no parameters; the value is an integer we format.
	if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", p.StatementTimeout.Milliseconds())); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	res := newValidationResult(rows.FieldDescriptions())
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		if err := res.add(vals); err != nil {
			return nil, &resultError{err}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// describeQueryError words a failed validation query for the report; the
// timeout gets its own wording because the fix (a cheaper query or a
// larger statement_timeout) is not what a syntax error needs.
func (p *Postgres) describeQueryError(id string, err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57014": // query_canceled, which statement_timeout raises
			return fmt.Sprintf("backfill %s: validation query exceeded statement_timeout %s on source %s: %s",
				id, p.StatementTimeout, p.sourceName(), pgErr.Message)
		case "25006": // read_only_sql_transaction
			return fmt.Sprintf("backfill %s: validation query tried to write, refused in a read-only transaction on source %s: %s",
				id, p.sourceName(), pgErr.Message)
		}
	}
	return fmt.Sprintf("backfill %s: validation query failed on source %s: %v", id, p.sourceName(), err)
}

// timeOf reads a driver value as a time, for min/max and day columns.
func timeOf(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t, true
	case string:
		for _, layout := range []string{time.DateOnly, "20060102", time.RFC3339Nano, time.DateTime} {
			if p, err := time.Parse(layout, t); err == nil {
				return p, true
			}
		}
	case int64:
		// 20260301 style partition ids.
		if p, err := time.Parse("20060102", fmt.Sprint(t)); err == nil {
			return p, true
		}
	case int32:
		return timeOf(int64(t))
	}
	return time.Time{}, false
}
