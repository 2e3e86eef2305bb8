package history

import (
	"context"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgReadTimeout is how long the PostgreSQL history store waits for the
// server's next bytes while a statement is running. statement_timeout is
// enforced by the server, so it does nothing when the server freezes
// (SIGSTOP, a dead network path): only a client-side deadline ends that.
// Every statement the store runs is small, so a minute of silence means
// the server is gone. A variable so tests can shorten it.
var pgReadTimeout = time.Minute

// withDeadlines gives every connection of the store a read deadline and
// the server a statement_timeout, unless the DSN sets its own.
func withDeadlines(pc *pgx.ConnConfig) {
	if pc.ConnectTimeout <= 0 {
		// No connect_timeout in the DSN: a port that accepts and never
		// answers (or an HTTP port) must not hold the audit.
		pc.ConnectTimeout = pgConnectTimeout
	}
	if _, ok := pc.RuntimeParams["statement_timeout"]; !ok {
		pc.RuntimeParams["statement_timeout"] = strconv.FormatInt(pgStatementTimeout.Milliseconds(), 10)
	}
	dial := pc.DialFunc
	if dial == nil {
		d := &net.Dialer{KeepAlive: 5 * time.Minute}
		dial = d.DialContext
	}
	pc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &readDeadlineConn{Conn: c, idle: pgReadTimeout}, nil
	}
}

// readDeadlineConn fails a read that waits longer than idle for bytes.
// The deadline is set per read, so an idle pooled connection (no read in
// progress) is never cut, and a long answer that keeps arriving is fine.
// pgx cancels a statement by setting a deadline in the past; that one is
// kept and wins over the idle deadline, so cancelling stays immediate.
type readDeadlineConn struct {
	net.Conn
	idle time.Duration

	mu  sync.Mutex
	set time.Time // the deadline pgx set, zero for none
}

func (c *readDeadlineConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	d := time.Now().Add(c.idle)
	if !c.set.IsZero() && c.set.Before(d) {
		d = c.set
	}
	err := c.Conn.SetReadDeadline(d)
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *readDeadlineConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = t
	return c.Conn.SetDeadline(t)
}

func (c *readDeadlineConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = t
	return c.Conn.SetReadDeadline(t)
}
