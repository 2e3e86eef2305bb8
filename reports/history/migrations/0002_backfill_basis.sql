-- Version 2: where each finding's backfill is described (the plan or record
-- source and file), so a run in which that source failed does not resolve
-- the finding just because the backfill vanished from the run. Rows stored
-- before this version do not know it: '*' marks them as resting on every
-- source until a run that knows their backfill sees them again.

ALTER TABLE findings ADD COLUMN backfill_source TEXT NOT NULL DEFAULT '';

ALTER TABLE findings ADD COLUMN backfill_scope TEXT NOT NULL DEFAULT '';

UPDATE findings SET backfill_source = '*' WHERE backfill_id <> '';
