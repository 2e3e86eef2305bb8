-- Version 1: runs, their coverage, findings with their history, digest claims.
-- Times are fixed-width UTC text (see timeLayout); booleans are 0/1 integers,
-- so one SQL text serves SQLite and PostgreSQL.

CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    at          TEXT NOT NULL,
    findings    INTEGER NOT NULL,
    waived      INTEGER NOT NULL,
    by_severity TEXT NOT NULL,
    complete    INTEGER NOT NULL
);

CREATE INDEX runs_at ON runs (at);

CREATE TABLE run_coverage (
    run_id       TEXT NOT NULL,
    source       TEXT NOT NULL,
    system       TEXT NOT NULL,
    status       TEXT NOT NULL,
    error        TEXT NOT NULL,
    scope_errors TEXT NOT NULL,
    artifacts    INTEGER NOT NULL,
    backfills    INTEGER NOT NULL,
    records      INTEGER NOT NULL,
    PRIMARY KEY (run_id, source)
);

CREATE TABLE findings (
    fingerprint    TEXT PRIMARY KEY,
    rule_id        TEXT NOT NULL,
    severity       TEXT NOT NULL,
    backfill_id    TEXT NOT NULL,
    artifact_uri   TEXT NOT NULL,
    owner          TEXT NOT NULL,
    source         TEXT NOT NULL,
    scope          TEXT NOT NULL,
    first_seen     TEXT NOT NULL,
    last_seen      TEXT NOT NULL,
    resolved_at    TEXT,
    reopened_at    TEXT,
    waived         INTEGER NOT NULL,
    waiver_reason  TEXT NOT NULL,
    waiver_expires TEXT,
    last_run       TEXT NOT NULL,
    detail         TEXT NOT NULL
);

CREATE INDEX findings_resolved_at ON findings (resolved_at);

CREATE TABLE digests (
    sink       TEXT NOT NULL,
    period     TEXT NOT NULL,
    state      TEXT NOT NULL,
    holder     TEXT NOT NULL,
    claimed_at TEXT NOT NULL,
    posted_at  TEXT,
    run_at     TEXT,
    PRIMARY KEY (sink, period)
);
