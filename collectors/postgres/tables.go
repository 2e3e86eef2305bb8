package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/jackc/pgx/v5"
)

// backfillObjects are the oids of one database's backfill schemas and
// tables, with how each was matched; grants are looked up by them.
type backfillObjects struct {
	schemas map[uint32]match
	tables  map[uint32]match
}

func (o backfillObjects) schemaOIDs() []uint32 { return keys(o.schemas) }
func (o backfillObjects) tableOIDs() []uint32  { return keys(o.tables) }

func keys(m map[uint32]match) []uint32 {
	out := make([]uint32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// System schemas hold no backfill machinery; pg_* names are reserved, so
// no user schema is skipped by the pattern. $1 optionally limits schemas.
const schemasQuery = `
SELECT n.oid, n.nspname, coalesce(d.description, ''), pg_get_userbyid(n.nspowner)
FROM pg_namespace n
LEFT JOIN pg_description d
  ON d.objoid = n.oid AND d.classoid = 'pg_namespace'::regclass AND d.objsubid = 0
WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'
  AND ($1::text[] IS NULL OR n.nspname = ANY($1::text[]))`

// The catalog listing is cheap (names and comments only) so that a
// database with many thousands of tables is filtered before any size or
// statistics are computed. Partitions are skipped: their parent stands for
// them.
const tablesQuery = `
SELECT c.oid, n.oid, n.nspname, c.relname, c.relkind::text, c.relpersistence::text,
       coalesce(d.description, ''), pg_get_userbyid(c.relowner)
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_description d
  ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
  AND n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'
  AND ($1::text[] IS NULL OR n.nspname = ANY($1::text[]))`

// tableStatsQuery reads size, row estimate and activity for the backfill
// tables only. Sizes need no privilege on the table; pg_stat_all_tables is
// readable by every role. %s adds last-use columns on PostgreSQL 16+.
const tableStatsQuery = `
SELECT c.oid,
       CASE WHEN c.relkind = 'p' THEN
         (SELECT coalesce(sum(greatest(pc.reltuples, 0)), 0)::bigint
          FROM pg_partition_tree(c.oid) t JOIN pg_class pc ON pc.oid = t.relid)
       ELSE c.reltuples::bigint END,
       CASE WHEN c.relkind = 'p' THEN
         (SELECT coalesce(sum(pg_total_relation_size(t.relid)), 0)::bigint FROM pg_partition_tree(c.oid) t)
       ELSE pg_total_relation_size(c.oid) END,
       s.n_live_tup,
       greatest(s.last_analyze, s.last_autoanalyze),
       greatest(s.last_vacuum, s.last_autovacuum),
       s.n_mod_since_analyze,
       %s
FROM pg_class c
LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid
WHERE c.oid = ANY($1::oid[])`

var relkindObject = map[string]string{
	"r": "table", "p": "partitioned_table", "v": "view", "m": "materialized_view", "f": "foreign_table",
}

// collectTables emits one database's backfill schemas and tables. A table
// in a backfill schema belongs to that schema's backfill unless its own
// comment or name says otherwise.
func (p *Postgres) collectTables(ctx context.Context, conn *pgx.Conn, db string, sink collectors.Sink) (backfillObjects, error) {
	objs := backfillObjects{schemas: map[uint32]match{}, tables: map[uint32]match{}}
	schemas := p.Schemas
	if len(schemas) == 0 {
		schemas = nil // NULL: every schema
	}
	if err := p.collectSchemas(ctx, conn, db, schemas, objs, sink); err != nil {
		return objs, err
	}
	rows, done, err := p.query(ctx, conn, tablesQuery, schemas)
	if err != nil {
		return objs, fmt.Errorf("postgres source %s: list tables in database %q: %w", p.sourceName(), db, err)
	}
	defer done()
	var found []model.Artifact
	var oids []uint32
	listed := 0
	for rows.Next() {
		listed++
		var (
			oid, nsOID                      uint32
			schema, name, kind, persistence string
			comment, dbOwner                string
		)
		if err := rows.Scan(&oid, &nsOID, &schema, &name, &kind, &persistence, &comment, &dbOwner); err != nil {
			rows.Close()
			return objs, fmt.Errorf("postgres source %s: read tables in database %q: %w", p.sourceName(), db, err)
		}
		uri := p.tableURI(db, schema, name)
		c := parseComment(comment)
		m, ok := objs.schemas[nsOID]
		if id, how, hit := p.env.Selector.Match(uri, schema+"."+name, c.Labels); hit {
			m, ok = match{id, how}, true
		}
		if !ok {
			continue
		}
		a := p.objectArtifact(db, uri, schema+"."+name, c, m)
		a.SetAttr(attrObject, relkindObject[kind])
		a.SetAttr(attrDBOwner, dbOwner)
		if persistence == "u" {
			a.SetAttr(attrUnlogged, "true")
		}
		objs.tables[oid] = m
		oids = append(oids, oid)
		found = append(found, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return objs, fmt.Errorf("postgres source %s: list tables in database %q: %w", p.sourceName(), db, err)
	}
	if len(found) == 0 {
		sink.AddRead(model.JoinScope(db), "tables", listed, 0)
		return objs, nil
	}
	stats, err := p.tableStats(ctx, conn, oids)
	if err != nil {
		// The tables are known; only their sizes are not. Emit them and
		// say so, rather than lose them.
		sink.AddError(model.JoinScope(db), fmt.Errorf("postgres source %s: table sizes in database %q: %w", p.sourceName(), db, err))
		sink.AddRead(model.JoinScope(db), "tables", listed, len(found))
	} else {
		sink.AddRead(model.JoinScope(db), "tables", listed, 0)
	}
	for i := range found {
		stats[oids[i]].apply(&found[i])
		sink.AddArtifact(found[i])
	}
	return objs, nil
}

// collectSchemas emits backfill schemas and records them in objs.
func (p *Postgres) collectSchemas(ctx context.Context, conn *pgx.Conn, db string, schemas []string, objs backfillObjects, sink collectors.Sink) error {
	rows, done, err := p.query(ctx, conn, schemasQuery, schemas)
	if err != nil {
		return fmt.Errorf("postgres source %s: list schemas in database %q: %w", p.sourceName(), db, err)
	}
	defer done()
	listed := 0
	for rows.Next() {
		listed++
		var oid uint32
		var name, comment, dbOwner string
		if err := rows.Scan(&oid, &name, &comment, &dbOwner); err != nil {
			return fmt.Errorf("postgres source %s: read schemas in database %q: %w", p.sourceName(), db, err)
		}
		uri := p.schemaURI(db, name)
		c := parseComment(comment)
		id, how, ok := p.env.Selector.Match(uri, name, c.Labels)
		if !ok {
			continue
		}
		objs.schemas[oid] = match{id, how}
		a := p.objectArtifact(db, uri, name, c, match{id, how})
		a.SetAttr(attrObject, "schema")
		a.SetAttr(attrDBOwner, dbOwner)
		sink.AddArtifact(a)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres source %s: list schemas in database %q: %w", p.sourceName(), db, err)
	}
	sink.AddRead(model.JoinScope(db), "schemas", listed, 0)
	return nil
}

// objectArtifact builds the table-kind artifact shared by schemas and
// tables. A PostgreSQL table does not expire by itself: an expires= in its
// comment is the plan, so State stays active past it and the rules judge.
func (p *Postgres) objectArtifact(db, uri, name string, c parsedComment, m match) model.Artifact {
	a := model.Artifact{
		Kind:        model.KindTable,
		Scope:       model.JoinScope(db),
		URI:         uri,
		Name:        name,
		BackfillID:  m.id,
		Correlation: m.how,
		Owner:       c.Owner,
		Labels:      model.TagsOf(c.Labels),
		ExpiresAt:   model.At(c.Expires),
		State:       model.StateActive,
	}
	if c.Problem != "" {
		a.SetAttr(attrCommentProblem, c.Problem)
	}
	c.keepOn(&a)
	return a
}

// tableStats is what pg_class and pg_stat_all_tables say of one table.
type tableStats struct {
	rows, bytes int64
	liveRows    *int64
	analyzed    *time.Time
	vacuumed    *time.Time
	modsSince   *int64
	lastUsed    *time.Time
}

func (s *tableStats) apply(a *model.Artifact) {
	if s == nil {
		return
	}
	obj := a.Attr(attrObject)
	if obj != "view" && obj != "foreign_table" {
		rows := s.rows
		// reltuples is -1 until the first VACUUM or ANALYZE (PG 14+); the
		// statistics' live-row count is the better guess then.
		if rows < 0 && s.liveRows != nil {
			rows = *s.liveRows
		}
		if rows >= 0 {
			a.SetAttr(model.AttrRows, strconv.FormatInt(rows, 10))
		}
		a.SetAttr(model.AttrBytes, strconv.FormatInt(s.bytes, 10))
	}
	if s.analyzed != nil {
		a.SetAttr(attrLastAnalyzed, s.analyzed.UTC().Format(time.RFC3339))
	}
	if s.vacuumed != nil {
		a.SetAttr(attrLastVacuumed, s.vacuumed.UTC().Format(time.RFC3339))
	}
	if s.modsSince != nil {
		a.SetAttr(attrModsSinceAnalyze, strconv.FormatInt(*s.modsSince, 10))
	}
	if s.lastUsed != nil {
		a.LastUsedAt = model.At(s.lastUsed.UTC())
	}
}

func (p *Postgres) tableStats(ctx context.Context, conn *pgx.Conn, oids []uint32) (map[uint32]*tableStats, error) {
	lastUsed := "NULL::timestamptz"
	if serverMajor(conn) >= 16 {
		lastUsed = "greatest(s.last_seq_scan, s.last_idx_scan)"
	}
	out := map[uint32]*tableStats{}
	rows, done, err := p.query(ctx, conn, fmt.Sprintf(tableStatsQuery, lastUsed), oids)
	if err != nil {
		return out, err
	}
	defer done()
	for rows.Next() {
		var oid uint32
		s := &tableStats{}
		if err := rows.Scan(&oid, &s.rows, &s.bytes, &s.liveRows, &s.analyzed, &s.vacuumed, &s.modsSince, &s.lastUsed); err != nil {
			return out, err
		}
		out[oid] = s
	}
	return out, rows.Err()
}

// serverMajor reads the server's major version from the startup
// parameters (e.g. "15.20 (Debian ...)" is 15); 0 when unreadable.
func serverMajor(conn *pgx.Conn) int {
	v := conn.PgConn().ParameterStatus("server_version")
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(strings.TrimSpace(major))
	return n
}
