-- Version 9: a crash-proof comparison base and byte-for-byte recovery.
-- runs.delivered_at: when the run's sinks ran to the end; a run that died
-- on the way (recorded, then killed while posting) is never the base a
-- later digest compares with. Runs from before this version count as
-- delivered, so an upgraded store keeps comparing with its previous run.
-- digests.parts: the claimed message as rendered, part by part, so the run
-- that takes over an unconfirmed claim posts exactly the parts that did
-- not land instead of rendering them again.

ALTER TABLE runs ADD COLUMN delivered_at TEXT;
UPDATE runs SET delivered_at = at;
ALTER TABLE digests ADD COLUMN parts TEXT;
