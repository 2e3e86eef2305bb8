package history

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Migrations are numbered files, one per schema version: 0001_init.sql,
// 0002_... A shipped file never changes; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive version and '_'", e.Name())
		}
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: versions must run 1, 2, 3... without gaps", m.name)
		}
	}
	return ms, nil
}

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int {
	ms, _ := migrations()
	return len(ms)
}

// migrate applies pending migrations in one transaction under the writers'
// lock, so two audits starting together apply each version once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	tx, err := s.writeTx(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_version: %w", err)
	}
	var current sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&current); err != nil {
		return fmt.Errorf("read schema_version: %w", err)
	}
	if int(current.Int64) > len(ms) {
		return fmt.Errorf("schema version %d is newer than this bfaudit knows (%d): upgrade bfaudit", current.Int64, len(ms))
	}
	for _, m := range ms[current.Int64:] {
		for _, stmt := range statements(m.sql) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)`),
			m.version, m.name, fmtTime(s.now())); err != nil {
			return fmt.Errorf("%s: record version: %w", m.name, err)
		}
	}
	return tx.Commit()
}

// statements splits a migration file on ';' at the end of a line; the
// migrations hold no semicolons inside literals. Comment-only chunks are
// dropped.
func statements(src string) []string {
	var out []string
	for _, chunk := range strings.Split(src, ";\n") {
		var lines []string
		for _, l := range strings.Split(chunk, "\n") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--") {
				lines = append(lines, l)
			}
		}
		if stmt := strings.TrimSuffix(strings.TrimSpace(strings.Join(lines, "\n")), ";"); stmt != "" {
			out = append(out, stmt)
		}
	}
	return out
}
