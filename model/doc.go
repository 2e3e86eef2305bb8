// Package model is bfaudit's domain model: the backfills, the artifacts they
// leave behind, their decision records, the coverage of each source and the
// findings the rules raise. Every other package imports it; it imports none
// of them, so it stays the one vocabulary the pipeline shares.
package model
