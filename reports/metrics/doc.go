// Package metrics turns a report into Prometheus metrics for the people who
// alert on audits: open findings by severity, rule, owner, team and
// overdue; whether each source answered; how long the run took; and when
// the last complete run was. It writes them in the Prometheus text format
// to a file for node_exporter's textfile collector (atomically, so a
// scrape never reads half a file) and pushes them to a Pushgateway.
//
// The text format (version 0.0.4), not OpenMetrics, is what both readers
// take: node_exporter's textfile collector parses only it, and the
// Pushgateway reads it by default. Every metric is a gauge, so nothing an
// OpenMetrics reader would want (counters' _total, units) is lost.
package metrics
