-- Version 8: the weekly review counts findings first seen per week.
CREATE INDEX findings_first_seen ON findings (first_seen);
