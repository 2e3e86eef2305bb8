-- Version 4: what `bfaudit fix --apply` did, one row per action: who took
-- it, when, on which finding and artifact, the command, the artifact's
-- state read just before, and how it ended (applied, failed, skipped);
-- and the claims that keep two fix runs off one backfill at once.

CREATE TABLE fix_actions (
    id           TEXT PRIMARY KEY,
    run_id       TEXT NOT NULL,
    at           TEXT NOT NULL,
    actor        TEXT NOT NULL,
    backfill_id  TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    rule_id      TEXT NOT NULL,
    artifact_uri TEXT NOT NULL,
    source       TEXT NOT NULL,
    action       TEXT NOT NULL,
    command      TEXT NOT NULL,
    before_state TEXT NOT NULL,
    result       TEXT NOT NULL,
    error        TEXT NOT NULL
);

CREATE INDEX fix_actions_backfill ON fix_actions (backfill_id, at);

CREATE TABLE fix_claims (
    backfill_id TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    claimed_at  TEXT NOT NULL
);
