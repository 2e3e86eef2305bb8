-- Version 7: every notice sent to someone about a finding (docs/reports/due.md):
-- listed (the owner first saw it in their issue or message), reminder, overdue,
-- escalation; by which channel (github, slack), to whom, when. One row per
-- finding, stage and channel: a notice is sent once.

CREATE TABLE notices (
    fingerprint TEXT NOT NULL,
    stage       TEXT NOT NULL,
    channel     TEXT NOT NULL,
    recipient   TEXT NOT NULL,
    sent_at     TEXT NOT NULL,
    PRIMARY KEY (fingerprint, stage, channel)
);

CREATE INDEX notices_sent_at ON notices (sent_at);
