// Package history is bfaudit's memory across runs: every audit is recorded
// (its time, the coverage of each source, its findings), so a report can say
// when a finding was first seen, what is new or resolved since the previous
// run, and how the open count trends. It also holds the digest claims that
// keep two audits running at once from posting the same Slack digest.
//
// The store is embedded SQLite (modernc.org/sqlite, pure Go) by default and
// PostgreSQL as the option for jobs without a disk; both run the same SQL,
// written with '?' placeholders and rebound for PostgreSQL.
package history
