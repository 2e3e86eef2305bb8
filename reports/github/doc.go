// Package github keeps one GitHub issue per backfill in step with the estate.
//
// Each run lists the labelled issues of the configured repository once
// (every page, state all), finds each backfill's issue again by a hidden
// marker in its body, and then creates, edits, ticks, closes or reopens
// issues so that they say what the report says, and nothing more: an issue
// whose rendered text did not change gets no write call at all.
//
// The sink never concludes that a finding is resolved from a source that
// did not answer this run (model.Coverage.Answered), never uses the search
// API (its index lags and would duplicate issues), and never puts the token
// in output, logs or errors.
package github
