-- Version 5: digest claims are short leases, renewed while posting. A
-- claim that was never confirmed (its run died, or a post failed with an
-- unknown outcome) keeps when the first such claim began, so the run that
-- takes it over knows from when to look for what already landed.

ALTER TABLE digests ADD COLUMN first_claimed_at TEXT;
