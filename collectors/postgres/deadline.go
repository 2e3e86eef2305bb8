package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// statementGrace is how much longer than statement_timeout the client
// waits for a query, so a server that is alive cancels a long statement
// itself and says so (evidence about the query) before the client gives
// up on a silent one (a failure of the source).
const statementGrace = 5 * time.Second

// queryTimeout is the client-side deadline of one query.
func (p *Postgres) queryTimeout() time.Duration {
	return max(p.Timeout, p.StatementTimeout+statementGrace)
}

// query runs one statement under the client-side deadline. pgx reads the
// rows under the same context, so the deadline also bounds a server that
// stops half-way through the answer; done releases it after the rows are
// closed.
func (p *Postgres) query(ctx context.Context, conn *pgx.Conn, sql string, args ...any) (rows pgx.Rows, done func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, p.queryTimeout())
	rows, err = conn.Query(ctx, sql, args...)
	if err != nil {
		cancel()
		return nil, func() {}, err
	}
	return rows, func() { rows.Close(); cancel() }, nil
}

// close ends a session without waiting on a server that went silent.
func (p *Postgres) close(ctx context.Context, conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	conn.Close(ctx)
}
