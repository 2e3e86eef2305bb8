-- Version 3: the last known description of each backfill (its plan, as the
-- last run that read it saw it), so a run whose plan file or source did not
-- answer audits the backfill as last described instead of from partial data.

CREATE TABLE backfill_descriptions (
    backfill_id TEXT PRIMARY KEY,
    source      TEXT NOT NULL,
    path        TEXT NOT NULL,
    seen_at     TEXT NOT NULL,
    description TEXT NOT NULL
);
