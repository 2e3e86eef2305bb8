-- Version 5: each finding's due date (docs/reports/due.md): when its clock
-- started (first seen, reopened, or a waiver ended), the date (NULL: no due
-- date), the policy it was computed from as text ("severity high 7d") and
-- its period in seconds, and whether the finding was waived when last
-- seen; and every move of a due date, with why.

CREATE TABLE finding_due (
    fingerprint    TEXT PRIMARY KEY,
    since          TEXT NOT NULL,
    due_at         TEXT,
    policy         TEXT NOT NULL,
    period_seconds BIGINT NOT NULL,
    waived         INTEGER NOT NULL,
    updated_at     TEXT NOT NULL
);

CREATE TABLE due_changes (
    fingerprint TEXT NOT NULL,
    at          TEXT NOT NULL,
    from_due    TEXT,
    to_due      TEXT,
    from_policy TEXT NOT NULL,
    to_policy   TEXT NOT NULL,
    reason      TEXT NOT NULL
);

CREATE INDEX due_changes_fingerprint ON due_changes (fingerprint, at);

CREATE INDEX due_changes_at ON due_changes (at);
